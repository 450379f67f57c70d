"""A small raw HTTP/1.1 client for the HTTP port's tests: keep-alive requests and chunked streams,
read byte for byte as the hub wrote them (no client library between the test and the wire)."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import struct
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

FRAME = struct.Struct(">BI")


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


class Connection:
    """One connection to the HTTP port (``async with``)."""

    def __init__(self, address: str, *, tls: ssl.SSLContext | None = None) -> None:
        self._host, port = address.rsplit(":", 1)
        self._port = int(port)
        self._tls = tls
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def __aenter__(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection(self._host, self._port, ssl=self._tls)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            await self.writer.wait_closed()

    async def send(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        *,
        content_type: str | None = "application/json",
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self._host}", f"Content-Length: {len(body)}"]
        if content_type is not None:
            lines.append(f"Content-Type: {content_type}")
        lines += [f"{name}: {value}" for name, value in headers]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await self.writer.drain()

    async def head(self) -> tuple[int, dict[str, str]]:
        data = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 10)
        lines = data.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.lower()] = value.strip()
        return status, headers

    async def answer(self) -> Answer:
        """The next whole answer (Content-Length or chunked body)."""
        status, headers = await self.head()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        else:
            body = b"".join([chunk async for chunk in self.chunks()])
        return Answer(status, headers, body)

    async def request(self, path: str, body: bytes = b"", **options: object) -> Answer:
        await self.send("POST", path, body, **options)  # type: ignore[arg-type]
        return await self.answer()

    async def chunks(self) -> AsyncIterator[bytes]:
        while True:
            size = int((await asyncio.wait_for(self.reader.readuntil(b"\r\n"), 10)).strip(), 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return
            data = await self.reader.readexactly(size)
            await self.reader.readexactly(2)
            yield data


def frames(data: bytes) -> list[tuple[int, bytes]]:
    """The enveloped messages of a body: (flags, message)."""
    found = []
    while data:
        flags, length = FRAME.unpack_from(data)
        found.append((flags, data[FRAME.size : FRAME.size + length]))
        data = data[FRAME.size + length :]
    return found


def framed(data: bytes, flags: int = 0) -> bytes:
    return FRAME.pack(flags, len(data)) + data
