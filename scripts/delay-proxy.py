#!/usr/bin/env python3
"""A TCP proxy on loopback that delays every chunk by DELAY_MS each way, so a
benchmark against an emulator on the same machine sees a network's round
trip (DynamoDB in a region is some milliseconds away; DynamoDB Local on
loopback is not). Order within a connection is kept. Benchmarks only.

    delay-proxy.py UPSTREAM_PORT DELAY_MS    prints "listening on PORT"
"""
import asyncio
import sys


async def pump(reader, writer, delay):
    queue = asyncio.Queue()

    async def deliver():
        loop = asyncio.get_running_loop()
        while True:
            due, chunk = await queue.get()
            if chunk is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()
        writer.close()

    delivering = asyncio.create_task(deliver())
    loop = asyncio.get_running_loop()
    try:
        while True:
            chunk = await reader.read(65536)
            await queue.put((loop.time() + delay, chunk or None))
            if not chunk:
                break
    except ConnectionError:
        await queue.put((0, None))
    await delivering


async def main(upstream_port, delay):
    async def serve(client_reader, client_writer):
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pump(client_reader, up_writer, delay),
                             pump(up_reader, client_writer, delay),
                             return_exceptions=True)

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2]) / 1000.0))
