"""Builds the P5 benchmark vault with the real sgit CLI: FILES files, about TOTAL_MB megabytes in all, in nested
folders, one commit, pushed to the running SG/Send server. Prints the read-key string on the last line."""

import hashlib
import os
import secrets
import string
import sys

# The shared helper module (Servers/common/standin), found from this file: the script is also run on its own.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))
from standin.sgit_cli import SgitCLI

SGIT, SERVER, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
FILES = int(os.environ.get("SGIT_BENCH_FILES", "1000"))
TOTAL_MB = float(os.environ.get("SGIT_BENCH_MB", "50"))
HOME = os.path.join(OUT, "home")
os.makedirs(HOME, exist_ok=True)


sgit = SgitCLI(SGIT, SERVER, HOME, timeout=1800)


phrase = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(24))
vid = "bench" + "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(7))
sgit("create", "bench", "--vault-key", f"sgit_private_vault_{phrase}:{vid}", cwd=OUT)
folder = os.path.join(OUT, "bench")
size = int(TOTAL_MB * 1024 * 1024 / FILES)
for index in range(FILES):
    rel = f"d{index % 10}/e{index % 7}/file-{index:04d}.bin"
    path = os.path.join(folder, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        # Half random (incompressible), half text: a realistic mix.
        handle.write(os.urandom(size // 2) + (b"line of text %d\n" % index) * (size // 2 // 16 + 1))
sgit("commit", "-m", f"bench: {FILES} files", cwd=folder)
sgit("push", cwd=folder)
key = hashlib.pbkdf2_hmac("sha256", phrase.encode(), f"sg-vault-v1:{vid}".encode(), 600_000, 32).hex()
print(f"sgit_private_read_{key}:{vid}")
