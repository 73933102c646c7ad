"""Load test of the puzzle game (see scripts/puzzler-load).

N players at once, each a guest (its own cookie) on the face level "eyes": a 640×480 JPEG every
1/15 s (open loop, as a camera sends), a fixture face panned a few pixels per frame (the frames
of scripts/load_streams.py). For each level reply the generator notes the round trip, camera
frame sent → level state received (what the page waits for), and the server's own time
(`waitMs` + `serverMs`); frames never answered (replaced in the server's one-frame mailbox by a
newer one) count as dropped. The bar (issue #25): p95 round trip ≤ 100 ms with 20 players on
loopback. One JSON line per run.
"""
import argparse, asyncio, json, os, sys, time, urllib.request

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_streams import frames_from, start_sentio  # noqa: E402

def guest_cookie(base):
    with urllib.request.urlopen(base + "/api/v1/puzzler/progress") as response:
        return response.headers["Set-Cookie"].split(";")[0]

async def player(url, cookie, frames, fps, seconds, warmup, results):
    sent_at, rtts, server_ms, phases = {}, [], [], {}
    start = time.perf_counter()
    end = start + warmup + seconds
    async with websockets.connect(url, max_size=None, open_timeout=30, ping_interval=None, compression=None,
                                  additional_headers={"Cookie": cookie}) as ws:
        async def reader():
            async for message in ws:
                now = time.perf_counter()
                reply = json.loads(message)
                if reply.get("type") != "level":
                    phases["error:" + reply.get("code", "?")] = phases.get("error:" + reply.get("code", "?"), 0) + 1
                    continue
                phases[reply["phase"]] = phases.get(reply["phase"], 0) + 1
                sent = sent_at.pop(reply.get("frame"), None)
                if sent is None or sent < start + warmup:
                    continue
                rtts.append((now - sent) * 1000)
                server_ms.append(reply["serverMs"] + reply["waitMs"])
        task = asyncio.create_task(reader())
        number, measured = 0, 0
        while time.perf_counter() < end:
            number += 1
            sent_at[number] = time.perf_counter()
            if sent_at[number] >= start + warmup:
                measured += 1
            await ws.send(frames[number % len(frames)])
            await asyncio.sleep(max(0, start + number / fps - time.perf_counter()))
        await asyncio.sleep(0.5)
        task.cancel()
    results.append({"sent": measured, "rtts": rtts, "server_ms": server_ms, "phases": phases})

def p(values, q):
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")

async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=".build/release/sentio")
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--fps", type=float, default=15)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--photo", default=None, help="a face photo (default: a fixture Yale face)")
    options = parser.parse_args()
    fixtures = os.environ.get("SENTIO_FIXTURES") or os.path.join(os.path.dirname(__file__), "..", "..", "shared", "fixtures")
    photo = options.photo or os.path.join(fixtures, "faces/identity/Yale_subject10/yale_subject10_normal.png")
    frames = frames_from(photo)
    process, base = start_sentio(options.bin)   # ws://host:port
    try:
        cookies = [guest_cookie(base.replace("ws://", "http://")) for _ in range(options.players)]
        url = base + "/api/v1/puzzler/levels/eyes/play"
        results = []
        await asyncio.gather(*(player(url, c, frames, options.fps, options.seconds, options.warmup, results) for c in cookies))
    finally:
        process.terminate()
    rtts = sorted(x for r in results for x in r["rtts"])
    server = sorted(x for r in results for x in r["server_ms"])
    sent = sum(r["sent"] for r in results)
    phases = {}
    for r in results:
        for k, v in r["phases"].items():
            phases[k] = phases.get(k, 0) + v
    line = {"players": options.players, "fps": options.fps, "seconds": options.seconds, "frames_sent": sent, "answered": len(rtts),
            "dropped": round(1 - len(rtts) / max(1, sent), 4), "p50_rtt_ms": round(p(rtts, 0.5), 1), "p95_rtt_ms": round(p(rtts, 0.95), 1),
            "p95_server_ms": round(p(server, 0.95), 1), "replies_by_phase": phases, "met": p(rtts, 0.95) <= 100}
    print(json.dumps(line))

if __name__ == "__main__":
    asyncio.run(main())
