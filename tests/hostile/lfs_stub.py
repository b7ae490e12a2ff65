"""A hostile Git LFS server on 127.0.0.1 for tests/hostile.rs.

usage: lfs_stub.py MODE PORT_FILE LOG_FILE

Answers the Batch API with download actions of its own making, per MODE:
  forever        GET streams bytes without end
  stall-batch    the batch answer sends its headers, then nothing
  stall-body     GET sends its headers and 10 bytes, then nothing
  bad-oids       the batch answer names short, non-ASCII and upper-case oids
  unrequested    the batch answer adds an object nobody asked for
  redirect       GET answers 302 to http://localhost:PORT/elsewhere (another
                 host by name) with an Authorization and a custom header in
                 the action; /elsewhere logs the headers it got
Writes the port it listens on to PORT_FILE; request lines and headers that
reach /elsewhere go to LOG_FILE.
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, PORT_FILE, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
OTHER = "b" * 64


def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        req = json.loads(body)
        port = self.server.server_address[1]
        if MODE == "stall-batch":
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.git-lfs+json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.flush()
            time.sleep(600)
            return
        objects = []
        for o in req["objects"]:
            action = {"href": f"http://127.0.0.1:{port}/obj/{o['oid']}"}
            if MODE == "redirect":
                action["header"] = {"Authorization": "Bearer secret-auth", "X-Custom": "secret-custom"}
            objects.append({"oid": o["oid"], "size": o["size"], "actions": {"download": action}})
        if MODE == "bad-oids":
            objects = [
                {"oid": "ab", "size": 1, "actions": {"download": {"href": f"http://127.0.0.1:{port}/x"}}},
                {"oid": "é" * 40, "size": 1, "actions": {"download": {"href": f"http://127.0.0.1:{port}/x"}}},
                {"oid": "AB" * 32, "size": 1, "actions": {"download": {"href": f"http://127.0.0.1:{port}/x"}}},
            ]
        if MODE == "unrequested":
            objects.append(
                {"oid": OTHER, "size": 5, "actions": {"download": {"href": f"http://127.0.0.1:{port}/other"}}}
            )
        text = json.dumps({"transfer": "basic", "objects": objects}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.git-lfs+json")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def do_GET(self):
        port = self.server.server_address[1]
        if self.path == "/elsewhere":
            log("elsewhere " + " ".join(f"{k}={v}" for k, v in self.headers.items()))
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/other":
            log("other fetched")
        if MODE == "redirect":
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{port}/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        try:
            if MODE == "stall-body":
                self.wfile.write(b"0123456789")
                self.wfile.flush()
                time.sleep(600)
                return
            chunk = b"x" * 65536
            while True:
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402

os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
