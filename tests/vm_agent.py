"""Inside the Wi-Fi VM: runs the bash scripts the test sends over a virtio-serial port, as root, and answers.

One JSON object a line each way: {"id", "sh", "timeout"} in, {"id", "rc", "out", "err"} out, one at a time; on
start it greets with {"id": "hello", "out": <the kernel's boot id>}, so the host knows at once that a boot is up."""
import json
import os
import subprocess
import sys
import time


def main(path: str) -> None:
    for _ in range(600):  # the port appears once udev has seen the virtio-serial device
        if os.path.exists(path):
            break
        time.sleep(0.1)
    fd = os.open(path, os.O_RDWR)
    with open("/proc/sys/kernel/random/boot_id") as f:
        hello = json.dumps({"id": "hello", "rc": 0, "out": f.read(), "err": ""}).encode() + b"\n"
    while hello:
        hello = hello[os.write(fd, hello):]
    buffer = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            time.sleep(0.1)  # the host is not connected
            continue
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            try:
                request = json.loads(line)
            except ValueError:
                continue
            try:
                done = subprocess.run(["bash", "-c", request["sh"]], capture_output=True, text=True,
                                      errors="replace", timeout=request.get("timeout", 120), stdin=subprocess.DEVNULL)
                reply = {"id": request["id"], "rc": done.returncode, "out": done.stdout, "err": done.stderr}
            except subprocess.TimeoutExpired as e:
                reply = {"id": request["id"], "rc": -1, "out": str(e.stdout or ""), "err": f"timed out: {e}"}
            data = json.dumps(reply).encode() + b"\n"
            while data:
                data = data[os.write(fd, data):]


if __name__ == "__main__":
    main(sys.argv[1])
