#!/usr/bin/env python3
"""Another client's /api/v1/faces under attack, side by side with the same requests on an idle
server (issue 34's acceptance). Loopback only, bounded in count and time.

    scripts/attack/pressure [--bin .build/release/sentio] [--rounds 2] [--requests 80] [attacks...]

Attacks (all by default):
  sockets   20,000 idle sockets from one address (127.0.0.2), reopened as the server closes them
  streams   96 idle /stream/faces sockets from two addresses (127.0.0.3, .4); then the
            administrator's kiosk device must still connect
  embeds    twelve /faces/embed?model=dlib&detector=mmod&upsample=1&jitter=10 at once from three addresses
            (127.0.0.5-7), a 640×640 JPEG (~40 KiB), kept up while the victim measures
  bombs     sixty 24-megapixel WebP files of about 1 KB posted at once (127.0.0.20-25); the
            server's resident memory is sampled every 20 ms
  imports   three 300-row CSV imports at once (the administrator, 127.0.0.10)

The victim (127.0.0.9) posts a fixture face photo to /api/v1/faces, one request at a time. Each
round measures the victim idle, then under the attack; the report gives both p95s and their
ratio (the bar: within 2x), and per attack what the attacker got back.
"""
import argparse, concurrent.futures, http.client, json, os, pathlib, resource, select, socket, statistics, struct, subprocess
import sys, tempfile, threading, time, zlib

FIXTURES = pathlib.Path(os.environ.get("SENTIO_FIXTURES", "../shared/fixtures"))
UPGRADE = ("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n")


def connection(port, source, timeout=120):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))


def request(port, source, method, path, body=None, headers=None, timeout=120):
    c = connection(port, source, timeout)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read(), dict(r.getheaders())
    finally:
        c.close()


def p95(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]


def victim(port, photo, count):
    """`count` stills from the victim's address, four a second (within the per-address request
    rate, as a person's page sends them); their times in ms and statuses."""
    times, statuses = [], []
    for _ in range(count):
        started = time.perf_counter()
        status, _, _ = request(port, "127.0.0.9", "POST", "/api/v1/faces", photo, {"Content-Type": "image/jpeg"})
        elapsed = time.perf_counter() - started
        times.append(elapsed * 1000)
        statuses.append(status)
        time.sleep(max(0.0, 0.25 - elapsed))
    return times, statuses


def png_of_one_colour(width, height):
    """A PNG of one colour, built with zlib (a row of zeros compresses to almost nothing)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + b"\x40\x80\xc0" * width
    raw = zlib.compress(row * height, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Attack:
    """Runs in threads until stopped; `report` says what the attacker saw."""
    def __init__(self):
        self.stop = threading.Event()
        self.report = {}
        self.threads = []

    def start(self, *targets):
        for target in targets:
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self.threads.append(t)

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)


def attack_sockets(port, total=20000):
    # This process's own files bound how many it can hold (the hard limit, less what it uses).
    total = min(total, resource.getrlimit(resource.RLIMIT_NOFILE)[1] - 300)
    attack = Attack()
    attack.report = {"wanted": total, "opened": 0, "closed_by_server": 0, "held_at_end": 0}
    sockets = []

    def run():
        while not attack.stop.is_set():
            while len(sockets) < total and not attack.stop.is_set():
                s = socket.socket()
                s.setblocking(False)
                try:
                    s.bind(("127.0.0.2", 0))
                    s.connect_ex(("127.0.0.1", port))
                except OSError:
                    s.close()
                    time.sleep(0.05)
                    break
                sockets.append(s)
                attack.report["opened"] += 1
            # Forget what the server closed, and open those again (poll: select stops at fd 1024).
            poller = select.poll()
            by_fd = {s.fileno(): s for s in sockets}
            for fd in by_fd:
                poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
            for fd, _ in poller.poll(200):
                s = by_fd[fd]
                try:
                    if s.recv(1) == b"":
                        raise OSError
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    sockets.remove(s)
                    s.close()
                    attack.report["closed_by_server"] += 1
        attack.report["held_at_end"] = len(sockets)
        for s in sockets:
            s.close()

    def guarded():
        try:
            run()
        except Exception as error:  # a crashed attacker would measure nothing: say so
            attack.report["error"] = repr(error)
            for s in sockets:
                s.close()

    attack.start(guarded)
    time.sleep(5)  # the sockets open before the victim measures
    return attack


def attack_streams(port, admin, lecture):
    attack = Attack()
    attack.report = {"answers": {}}
    held = []
    for source in ("127.0.0.3", "127.0.0.4"):
        for _ in range(48):
            s = socket.socket()
            s.bind((source, 0))
            s.settimeout(10)
            s.connect(("127.0.0.1", port))
            s.sendall(UPGRADE.format(path="/api/v1/stream/faces", extra="").encode())
            answer = s.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
            attack.report["answers"][answer] = attack.report["answers"].get(answer, 0) + 1
            held.append(s)
    # The administrator's kiosk, from another address, while the guests hold what they got.
    k = socket.socket()
    k.bind(("127.0.0.10", 0))
    k.settimeout(10)
    k.connect(("127.0.0.1", port))
    k.sendall(UPGRADE.format(path="/api/v1/attendance/kiosk/stream", extra=f"Cookie: {admin.kiosk_device(lecture)}\r\n").encode())
    attack.report["kiosk"] = k.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
    held.append(k)

    def keep():
        attack.stop.wait()
        for s in held:
            s.close()

    attack.start(keep)
    return attack


def attack_embeds(port, jpeg):
    attack = Attack()
    attack.report = {"statuses": {}, "jpeg_bytes": len(jpeg)}
    lock = threading.Lock()

    def one(source):
        def run():
            while not attack.stop.is_set():
                try:
                    status, _, _ = request(port, source, "POST", "/api/v1/faces/embed?model=dlib&detector=mmod&upsample=1&jitter=10", jpeg,
                                           {"Content-Type": "image/jpeg"}, timeout=120)
                except OSError as error:
                    status = type(error).__name__
                with lock:
                    attack.report["statuses"][str(status)] = attack.report["statuses"].get(str(status), 0) + 1
                if status in (429, 503):
                    time.sleep(0.5)
        return run

    attack.start(*[one(source) for source in ("127.0.0.5", "127.0.0.6", "127.0.0.7") for _ in range(4)])
    time.sleep(1)
    return attack


def attack_bombs(port, server_pid, webp):
    attack = Attack()
    attack.report = {"statuses": {}, "webp_bytes": len(webp), "rss_before_mb": round(rss_mb(server_pid), 1)}
    peak = [0.0]

    def sample():
        while not attack.stop.is_set():
            peak[0] = max(peak[0], rss_mb(server_pid))
            time.sleep(0.02)
        attack.report["rss_peak_mb"] = round(peak[0], 1)
        attack.report["rss_growth_mb"] = round(peak[0] - attack.report["rss_before_mb"], 1)

    def burst():
        while not attack.stop.is_set():
            # Sixty at once, ten from each of six addresses: within every per-address request
            # limit, so that only the budget of decoded pixels stands between them and memory.
            with concurrent.futures.ThreadPoolExecutor(60) as pool:
                futures = [pool.submit(request, port, f"127.0.0.{20 + k % 6}", "POST", "/api/v1/pose", webp, {"Content-Type": "image/webp"}, 120)
                           for k in range(60)]
                for f in futures:
                    try:
                        status = f.result()[0]
                    except OSError as error:
                        status = type(error).__name__
                    attack.report["statuses"][str(status)] = attack.report["statuses"].get(str(status), 0) + 1

    attack.start(sample, burst)
    time.sleep(0.5)
    return attack


def attack_imports(port, admin, course_ids):
    attack = Attack()
    attack.report = {"statuses": [], "seconds": []}
    lock = threading.Lock()

    def one(index):
        def run():
            rows = "username,display name\n" + "".join(f"imp{index}-{int(time.time())}-{i},Student {i}\n" for i in range(300))
            started = time.time()
            try:
                status = admin.csv(f"/api/v1/attendance/courses/{course_ids[index]}/students.csv", rows)
            except OSError as error:
                status = type(error).__name__
            with lock:
                attack.report["statuses"].append(status)
                attack.report["seconds"].append(round(time.time() - started, 1))
        return run

    attack.start(*[one(i) for i in range(3)])
    time.sleep(1)
    return attack


class Admin:
    """The administrator's session, from 127.0.0.10."""
    def __init__(self, port, username, password):
        self.port, self.username, self.password = port, username, password
        status, body, headers = request(port, "127.0.0.10", "POST", "/api/v1/session",
                                        json.dumps({"username": username, "password": password}), {"Content-Type": "application/json"})
        assert status == 200, (status, body)
        self.csrf = json.loads(body)["csrfToken"]
        self.cookie = headers["Set-Cookie"].split(";")[0]

    def call(self, method, path, body=None):
        status, data, _ = request(self.port, "127.0.0.10", method, path, json.dumps(body) if body is not None else None,
                                  {"Content-Type": "application/json", "Cookie": self.cookie, "X-CSRF-Token": self.csrf})
        assert status < 300, (method, path, status, data[:300])
        return json.loads(data) if data else None

    def kiosk_device(self, lecture):
        """A kiosk device of the lecture, made by a second session of the administrator (the
        session that makes a kiosk ends): its cookie."""
        device = Admin(self.port, self.username, self.password)
        c = connection(self.port, "127.0.0.10", 30)
        try:
            c.request("POST", f"/api/v1/attendance/lectures/{lecture}/kiosk-device", headers={"Cookie": device.cookie, "X-CSRF-Token": device.csrf})
            r = c.getresponse()
            assert r.status == 201, (r.status, r.read()[:300])
            return next(v.split(";")[0] for k, v in r.getheaders() if k.lower() == "set-cookie" and v.startswith("sentio_kiosk="))
        finally:
            c.close()

    def csv(self, path, text):
        return request(self.port, "127.0.0.10", "POST", path, text.encode(),
                       {"Content-Type": "text/csv", "Cookie": self.cookie, "X-CSRF-Token": self.csrf}, timeout=3600)[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("SENTIO_BIN", ".build/release/sentio"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--requests", type=int, default=80)
    parser.add_argument("attacks", nargs="*", default=["sockets", "streams", "embeds", "bombs", "imports"])
    options = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    faces = sorted((FIXTURES / "faces/identity").glob("*/*.jpg"))
    if not faces:
        sys.exit(f"pressure: no fixture faces under {FIXTURES}/faces/identity (set SENTIO_FIXTURES)")
    photo = faces[0].read_bytes()
    work = pathlib.Path(tempfile.mkdtemp(prefix="sentio-pressure-"))
    big = work / "big.jpg"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-i", str(faces[0]), "-vf", "scale=640:640", "-q:v", "4", str(big)], check=True)
    (work / "bomb.png").write_bytes(png_of_one_colour(4896, 4896))
    subprocess.run(["cwebp", "-quiet", "-lossless", "-z", "9", str(work / "bomb.png"), "-o", str(work / "bomb.webp")], check=True)
    jpeg, webp = big.read_bytes(), (work / "bomb.webp").read_bytes()

    data = work / "data"
    subprocess.run([options.bin, "admin", "create", "--username", "registrar", "--data-dir", str(data)],
                   input="registrar password 1\n", text=True, check=True, capture_output=True)
    server = subprocess.Popen([options.bin, "serve", "--port", "0", "--json", "--data-dir", str(data), "--log-level", "error"],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(json.loads(server.stdout.readline())["http"].rsplit(":", 1)[1])
        admin = Admin(port, "registrar", "registrar password 1")
        course = admin.call("POST", "/api/v1/attendance/courses", {"code": "SEC1", "title": "Security", "academicYear": "2026/27"})
        now = int(time.time() * 1000)
        lecture = admin.call("POST", f"/api/v1/attendance/courses/{course['id']}/lectures",
                             {"title": "Under attack", "startsAt": now - 60_000, "endsAt": now + 3_600_000})
        courses = [admin.call("POST", "/api/v1/attendance/courses", {"code": f"IMP{i}", "title": f"Import {i}", "academicYear": "2026/27"})["id"]
                   for i in range(3)]
        victim(port, photo, 10)  # warm the models
        results = []
        for name in options.attacks:
            for round_ in range(options.rounds):
                idle, idle_status = victim(port, photo, options.requests)
                if name == "sockets":
                    attack = attack_sockets(port)
                elif name == "streams":
                    attack = attack_streams(port, admin, lecture["id"])
                elif name == "embeds":
                    attack = attack_embeds(port, jpeg)
                elif name == "bombs":
                    attack = attack_bombs(port, server.pid, webp)
                elif name == "imports":
                    attack = attack_imports(port, admin, courses)
                else:
                    sys.exit(f"pressure: unknown attack {name}")
                under, under_status = victim(port, photo, options.requests)
                attack.finish()
                time.sleep(2)  # let the server settle before the next idle measurement
                alive = request(port, "127.0.0.9", "GET", "/healthz")[0] == 200
                result = {"attack": name, "round": round_ + 1, "idle_p95_ms": round(p95(idle), 1), "attack_p95_ms": round(p95(under), 1),
                          "ratio": round(p95(under) / p95(idle), 2), "idle_median_ms": round(statistics.median(idle), 1),
                          "attack_median_ms": round(statistics.median(under), 1),
                          "victim_statuses": sorted(set(idle_status + under_status)), "alive": alive, "attacker": attack.report}
                print(json.dumps(result), flush=True)
                results.append(result)
        worst = {}
        for r in results:
            worst[r["attack"]] = max(worst.get(r["attack"], 0), r["ratio"])
        ok = all(r["alive"] and r["victim_statuses"] == [200] and r["ratio"] <= 2 for r in results)
        print(json.dumps({"summary": True, "worst_ratio": worst, "within_2x": ok}))
        sys.exit(0 if ok else 1)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
