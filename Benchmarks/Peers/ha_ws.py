"""What the Home Assistant peers share: an authenticated WebSocket connection (websockets 17, no compression, no
size limit, no keepalive pings)."""

import json

from websockets.asyncio.client import ClientConnection, connect


def websocket_url(url: str) -> str:
    """`http://host:port` → `ws://host:port/api/websocket`."""
    return url.rstrip("/").replace("http", "ws", 1) + "/api/websocket"


async def authenticated(url: str, token: str) -> ClientConnection:
    """A connection to Home Assistant at `url`, past its auth phase; exits with Home Assistant's sentence if not."""
    ws = await connect(websocket_url(url), compression=None, max_size=None, ping_interval=None)
    hello = json.loads(await ws.recv())
    if hello.get("type") != "auth_required":
        raise SystemExit(f"Home Assistant said {hello.get('type')} first")
    await ws.send(json.dumps({"type": "auth", "access_token": token}))
    answer = json.loads(await ws.recv())
    if answer.get("type") != "auth_ok":
        raise SystemExit(f"Home Assistant refused the token: {answer.get('message', answer.get('type'))}")
    return ws
