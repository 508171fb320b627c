"""Reference rules service for the Vatican Report and Excommunication of Lorenzo il Magnifico."""
