"""Three `sentio serve` behind HAProxy on one PostgreSQL, on loopback; one server is killed mid-run.

Run by scripts/failover (inside scripts/with-postgres). Each run:
  1. starts three servers (fixed free ports, --trusted-proxy 127.0.0.1) and HAProxy in front
     (health check GET /healthz every 300 ms, down after 2 failures, up after 2 successes;
     redispatch on a refused connection; the sessions of a server marked down are shut);
  2. runs clients through the proxy: face streams (frames at 5/s), a pairing room with a phone's
     motion stream and a desktop watcher, an arcade room the same way, two check-in kiosks of a
     lecture (kiosk devices the administrator made, frames at 3/s), and a writer opening rooms
     (each acknowledged room must exist at the end); every client reconnects with back-off
     (100 ms, doubling to 1 s) when its socket drops;
  3. checks that the streams spread over the three servers (each server's own /metrics);
  4. SIGKILLs one server: every client that was on it must be answered again within 3 s;
     HAProxy's check must mark it down;
  5. restarts it on the same port: HAProxy must mark it up and send it new streams;
  6. checks that no acknowledged write is missing.
The figures are printed as one JSON line per run; exit status 0 when every run passes.
"""
import argparse, asyncio, json, os, pathlib, signal, socket, subprocess, sys, tempfile, time, urllib.request

import websockets

FIXTURES = pathlib.Path(os.environ.get("SENTIO_FIXTURES", "../shared/fixtures"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http(method, url, body=None, headers=None, timeout=10):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, response.read()


def metric(port, name):
    """The sum of a counter on one server, read from its own /metrics (loopback may read it)."""
    try:
        _, text = http("GET", f"http://127.0.0.1:{port}/metrics", timeout=5)
    except OSError:
        return None
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.decode().splitlines() if line.startswith(name))


class Cluster:
    def __init__(self, binary, database, work):
        self.binary, self.database, self.work = binary, database, work
        self.ports = [free_port() for _ in range(3)]
        self.servers = [None, None, None]
        self.proxy_port = free_port()
        self.proxy = None

    def start_server(self, i):
        data = self.work / f"server{i}"
        data.mkdir(exist_ok=True)
        args = [self.binary, "serve", "--port", str(self.ports[i]), "--json", "--data-dir", str(data), "--database", self.database,
                "--trusted-proxy", "127.0.0.1", "--request-rate", "1000", "--log-level", "error"]
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if not process.stdout.readline():
            sys.exit(f"failover: server {i} did not start")
        self.servers[i] = process

    def start_proxy(self):
        config = self.work / "haproxy.cfg"
        servers = "\n".join(f"    server s{i} 127.0.0.1:{port} check" for i, port in enumerate(self.ports))
        config.write_text(f"""global
    maxconn 4000
    stats socket {self.work}/haproxy.sock mode 600 level admin
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout http-request 10s
    timeout tunnel 1h
    retries 3
    option redispatch
frontend sentio
    bind 127.0.0.1:{self.proxy_port}
    option forwardfor
    default_backend servers
backend servers
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 300ms fall 2 rise 2 on-marked-down shutdown-sessions
{servers}
""")
        self.proxy = subprocess.Popen(["haproxy", "-db", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if http("GET", f"http://127.0.0.1:{self.proxy_port}/healthz")[0] == 200 and all(self.state(i) == "UP" for i in range(3)):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        sys.exit("failover: HAProxy did not come up with three servers")

    def state(self, i):
        """HAProxy's view of server i: UP, DOWN, … (from its stats socket)."""
        s = socket.socket(socket.AF_UNIX)
        s.connect(str(self.work / "haproxy.sock"))
        s.sendall(b"show stat\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        s.close()
        for line in data.decode().splitlines():
            fields = line.split(",")
            if len(fields) > 17 and fields[0] == "servers" and fields[1] == f"s{i}":
                return fields[17].split(" ")[0]
        return "?"

    def stop(self):
        for p in [self.proxy, *self.servers]:
            if p and p.poll() is None:
                p.kill()
                p.wait()


class Client:
    """A socket client that reconnects with back-off; notes how long each outage lasted."""
    def __init__(self, name, url, on_open, interval, outages, headers=None):
        self.name, self.url, self.on_open, self.interval = name, url, on_open, interval
        self.outages = outages
        self.headers = headers or {}
        self.answered = 0
        self.down_since = None
        self.stop = False

    async def run(self):
        delay = 0.1
        while not self.stop:
            try:
                async with websockets.connect(self.url, max_size=None, open_timeout=3, additional_headers=self.headers) as ws:
                    delay = 0.1
                    await self.on_open(ws, self)
            except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException):
                pass
            if self.stop:
                return
            if self.down_since is None:
                self.down_since = time.time()
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)

    def answered_now(self):
        self.answered += 1
        if self.down_since is not None:
            self.outages.append((self.name, time.time() - self.down_since))
            self.down_since = None


async def run_once(options, database, number):
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"sentio-failover-{number}-"))
    cluster = Cluster(options.bin, database, work)
    for i in range(3):
        cluster.start_server(i)
    cluster.start_proxy()
    base = f"127.0.0.1:{cluster.proxy_port}"
    frame = sorted((FIXTURES / "faces/identity").glob("*/*.jpg"))[0].read_bytes()
    outages, clients = [], []

    async def faces(ws, client):
        while not client.stop:
            await ws.send(frame)
            reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if reply.get("type") == "observation":
                client.answered_now()
            await asyncio.sleep(0.2)

    _, body = http("POST", f"http://{base}/api/v1/rooms", b'{"purpose": "motion"}', {"Content-Type": "application/json"})
    room = json.loads(body)["room"]["code"]

    async def phone(ws, client):
        t = 0.0
        while not client.stop:
            samples = [{"t": (t + k * 0.01) * 1000, "accelerationIncludingGravity": {"x": 0.1, "y": 0.2, "z": 9.8},
                        "rotationRate": {"alpha": 0.0, "beta": 1.5, "gamma": -0.3}} for k in range(10)]
            t += 0.1
            await ws.send(json.dumps({"samples": samples}))
            await asyncio.wait_for(ws.recv(), 5)
            client.answered_now()
            await asyncio.sleep(0.1)

    async def watcher(ws, client):
        while not client.stop:
            await asyncio.wait_for(ws.recv(), 5)
            client.answered_now()


    for k in range(6):
        clients.append(Client(f"faces{k}", f"ws://{base}/api/v1/stream/faces", faces, 0.2, outages))
    clients.append(Client("phone", f"ws://{base}/api/v1/stream/motion?room={room}", phone, 0.1, outages))
    clients.append(Client("watcher", f"ws://{base}/api/v1/rooms/{room}/events", watcher, 0, outages))
    # The motion arcade: a phone steering a game in a room of its own, the desktop watching.
    _, body = http("POST", f"http://{base}/api/v1/rooms", b'{"purpose": "arcade"}', {"Content-Type": "application/json"})
    arcade = json.loads(body)["room"]["code"]
    clients.append(Client("arcade-phone", f"ws://{base}/api/v1/stream/motion?room={arcade}", phone, 0.1, outages))
    clients.append(Client("arcade-desktop", f"ws://{base}/api/v1/rooms/{arcade}/events", watcher, 0, outages))
    acknowledged, write_errors = [], [0]

    async def writer():
        while not clients[0].stop:
            try:
                status, body = await asyncio.to_thread(http, "POST", f"http://{base}/api/v1/rooms", b'{"purpose": "camera"}',
                                                       {"Content-Type": "application/json"}, 5)
                if status == 201:
                    acknowledged.append(json.loads(body)["room"]["code"])
            except OSError:
                write_errors[0] += 1
            await asyncio.sleep(0.05)

    # Check-ins: two kiosk devices of a lecture (their tokens are in the database every server
    # reads), sending camera frames and answered on each.
    subprocess.run([options.bin, "admin", "create", "--username", f"registrar{number}", "--database", database, "--data-dir", str(work / "admin")],
                   input="registrar password 1\n", text=True, check=True, capture_output=True)

    def sign_in():
        with urllib.request.urlopen(urllib.request.Request(f"http://{base}/api/v1/session", method="POST",
                                                           data=json.dumps({"username": f"registrar{number}", "password": "registrar password 1"}).encode(),
                                                           headers={"Content-Type": "application/json"})) as response:
            return {"Content-Type": "application/json", "Cookie": response.headers["Set-Cookie"].split(";")[0],
                    "X-CSRF-Token": json.loads(response.read())["csrfToken"]}

    def kiosk_device(lecture_id):
        """A browser turned into the lecture's kiosk: its session ends, a kiosk cookie comes back."""
        request = urllib.request.Request(f"http://{base}/api/v1/attendance/lectures/{lecture_id}/kiosk-device", method="POST", headers=sign_in())
        with urllib.request.urlopen(request, timeout=10) as response:
            return next(c.split(";")[0] for c in response.headers.get_all("Set-Cookie") if c.startswith("sentio_kiosk="))

    staff = sign_in()
    course = json.loads(http("POST", f"http://{base}/api/v1/attendance/courses",
                             json.dumps({"code": f"FO{number}", "title": "Failover", "academicYear": "2026/27"}).encode(), staff)[1])
    now = int(time.time() * 1000)
    lecture = json.loads(http("POST", f"http://{base}/api/v1/attendance/courses/{course['id']}/lectures",
                              json.dumps({"title": "Week 1", "startsAt": now - 60_000, "endsAt": now + 3_600_000}).encode(), staff)[1])

    async def kiosk(ws, client):
        while not client.stop:
            await ws.send(frame)
            await asyncio.wait_for(ws.recv(), 5)
            client.answered_now()
            await asyncio.sleep(0.3)

    for k in range(2):
        clients.append(Client(f"kiosk{k}", f"ws://{base}/api/v1/attendance/kiosk/stream", kiosk, 0.3, outages,
                              headers={"Cookie": kiosk_device(lecture["id"])}))
    tasks = [asyncio.create_task(c.run()) for c in clients] + [asyncio.create_task(writer())]
    await asyncio.sleep(6)
    opened_before = [metric(p, "sentio_streams_total") for p in cluster.ports]
    answered_before = {c.name: c.answered for c in clients}
    victim = number % 3
    killed_at = time.time()
    cluster.servers[victim].send_signal(signal.SIGKILL)
    cluster.servers[victim].wait()
    down_after = None
    while time.time() - killed_at < 10:
        if cluster.state(victim) in ("DOWN", "MAINT"):
            down_after = time.time() - killed_at
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(5)
    answered_mid = {c.name: c.answered for c in clients}
    cluster.start_server(victim)
    restarted_at = time.time()
    up_after = None
    while time.time() - restarted_at < 10:
        if cluster.state(victim) == "UP":
            up_after = time.time() - restarted_at
            break
        await asyncio.sleep(0.1)
    # New streams after the restart reach the restarted server too (round robin).
    extra = [Client(f"late{k}", f"ws://{base}/api/v1/stream/faces", faces, 0.2, outages) for k in range(3)]
    tasks += [asyncio.create_task(c.run()) for c in extra]
    await asyncio.sleep(4)
    restarted_streams = metric(cluster.ports[victim], "sentio_streams_total")
    for c in clients + extra:
        c.stop = True
    await asyncio.sleep(1)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    missing = []
    for code in acknowledged:
        try:
            status, _ = http("GET", f"http://127.0.0.1:{cluster.ports[(victim + 1) % 3]}/api/v1/rooms/{code}")
        except urllib.error.HTTPError as error:
            status = error.code
        if status != 200:
            missing.append(code)
    cluster.stop()
    worst = max((seconds for _, seconds in outages), default=0.0)
    report = {
        "run": number + 1, "killed": f"s{victim}", "streams_opened_per_server": opened_before,
        "spread": all((n or 0) > 0 for n in opened_before),
        "every_client_answered_after_kill": all(answered_mid[c.name] > answered_before[c.name] for c in clients),
        "outages": len(outages), "worst_outage_s": round(worst, 2), "proxy_marked_down_after_s": down_after and round(down_after, 2),
        "proxy_marked_up_after_s": up_after and round(up_after, 2), "restarted_server_new_streams": restarted_streams,
        "writes_acknowledged": len(acknowledged), "writes_failed": write_errors[0], "acknowledged_missing": len(missing),
    }
    report["pass"] = (report["spread"] and report["every_client_answered_after_kill"] and worst <= 3.0 and down_after is not None
                      and up_after is not None and (restarted_streams or 0) > 0 and not missing)
    print(json.dumps(report), flush=True)
    return report["pass"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("SENTIO_BIN", ".build/release/sentio"))
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    database = os.environ.get("SENTIO_TEST_POSTGRES")
    if not database:
        sys.exit("failover: run inside scripts/with-postgres (SENTIO_TEST_POSTGRES)")
    results = [asyncio.run(run_once(options, database, n)) for n in range(options.runs)]
    print(json.dumps({"summary": True, "passed": sum(results), "runs": len(results)}))
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
