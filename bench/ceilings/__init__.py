"""The frozen ceilings (bench/README.md): standalone ASGI apps, none of the service's code."""
