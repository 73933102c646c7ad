#!/usr/bin/env python3
"""The reference for the load test: a face-stream server made of MediaPipe 0.10.21's Python
FaceMesh and the `websockets` package, speaking Sentio's stream protocol, so
scripts/load-streams can drive both side by side.

    ~/.cache/sentio/venv-mediapipe/bin/python scripts/reference/mediapipe_server.py [--port 0]

Prints {"ws": "ws://127.0.0.1:PORT"} once listening. At ws://…/api/v1/stream/faces each binary
message is a JPEG frame; each processed frame is answered with
{"type": "observation", "frame", "dropped", "serverMs", "waitMs", "observation": {"faces": [...]}} —
the same envelope as Sentio (waitMs: from the frame's receipt to the start of its processing). Like Sentio, a connection keeps one waiting frame (the newest wins, the
replaced one counts as dropped) and runs one FaceMesh in tracking mode (static_image_mode=False,
one face) per connection; frames are decoded with OpenCV. Work runs on a thread pool with one
thread per core (MediaPipe's graph releases the GIL while it runs).

Runs in ~/.cache/sentio/venv-mediapipe (see mediapipe_solutions.py) with `websockets` added.
"""
import argparse, asyncio, json, os, sys, time
from concurrent.futures import ThreadPoolExecutor

import cv2
import mediapipe as mp
import numpy as np
import websockets


class Connection:
    def __init__(self):
        self.mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=False, max_num_faces=1, refine_landmarks=False)
        self.waiting = None
        self.event = asyncio.Event()
        self.dropped = 0
        self.closed = False

    def process(self, jpeg, received):
        started = time.perf_counter()
        self.wait_ms = (started - received) * 1000
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            return None, (time.perf_counter() - started) * 1000
        result = self.mesh.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
        faces = []
        for landmarks in result.multi_face_landmarks or []:
            faces.append({"landmarks": [[p.x, p.y, p.z] for p in landmarks.landmark]})
        h, w = image.shape[:2]
        return {"width": w, "height": h, "faces": faces}, (time.perf_counter() - started) * 1000


async def handle(ws, pool):
    if ws.request.path.split("?")[0] != "/api/v1/stream/faces":
        await ws.close(1008, "only /api/v1/stream/faces")
        return
    connection = Connection()
    loop = asyncio.get_running_loop()

    async def worker():
        while True:
            await connection.event.wait()
            connection.event.clear()
            if connection.waiting is None:
                if connection.closed: return
                continue
            frame, jpeg, received = connection.waiting
            connection.waiting = None
            observation, ms = await loop.run_in_executor(pool, connection.process, jpeg, received)
            if observation is None:
                reply = {"type": "error", "code": "bad_frame", "frame": frame}
            else:
                reply = {"type": "observation", "stream": "faces", "frame": frame, "dropped": connection.dropped,
                         "serverMs": ms, "waitMs": connection.wait_ms, "observation": observation}
            try:
                await ws.send(json.dumps(reply))
            except websockets.exceptions.ConnectionClosed:
                return

    task = asyncio.create_task(worker())
    frame = 0
    try:
        async for message in ws:
            if isinstance(message, bytes):
                frame += 1
                if connection.waiting is not None:
                    connection.dropped += 1
                connection.waiting = (frame, message, time.perf_counter())
                connection.event.set()
    except websockets.exceptions.ConnectionClosed:
        pass
    finally:
        connection.closed = True
        connection.event.set()
        await task
        connection.mesh.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    options = parser.parse_args()
    pool = ThreadPoolExecutor(max_workers=options.threads)
    # No permessage-deflate: Sentio does not negotiate it, and compressing JPEG frames would only
    # cost the reference CPU.
    async with websockets.serve(lambda ws: handle(ws, pool), "127.0.0.1", options.port, max_size=8 << 20, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(json.dumps({"ws": f"ws://127.0.0.1:{port}"}), flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
