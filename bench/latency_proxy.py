"""A TCP proxy that delays every chunk each way: a database "on another host" for A/B
runs on one machine, where what a round trip costs decides (on loopback it costs ~50 us).

    python -m bench.latency_proxy LISTEN_PORT TARGET_PORT ONE_WAY_MS
    DATABASE_URL=postgresql://postgres@127.0.0.1:LISTEN_PORT/db ...

The delay is at least ONE_WAY_MS, rounded up by the event loop's 1 ms timer resolution:
measured with 0.25, a ``SELECT 1`` takes 2.3 ms through it against 0.05 ms direct, about
a database in another zone. Order within a direction is kept (one queue per direction).
"""

from __future__ import annotations

import argparse
import asyncio
import time


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def deliver() -> None:
        while True:
            due, chunk = await queue.get()
            if not chunk:
                writer.close()
                return
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()

    delivering = asyncio.create_task(deliver())
    try:
        while chunk := await reader.read(65536):
            queue.put_nowait((time.monotonic() + delay, chunk))
    finally:
        queue.put_nowait((0.0, b""))
        await delivering


async def proxy(listen: int, target: int, delay: float) -> None:
    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(
            _pump(client_r, server_w, delay),
            _pump(server_r, client_w, delay),
            return_exceptions=True,
        )

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    print(f"127.0.0.1:{listen} -> :{target}, {delay * 1000:.2f} ms each way", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("listen_port", type=int)
    parser.add_argument("target_port", type=int)
    parser.add_argument("one_way_ms", type=float)
    args = parser.parse_args()
    asyncio.run(proxy(args.listen_port, args.target_port, args.one_way_ms / 1000))


if __name__ == "__main__":
    main()
