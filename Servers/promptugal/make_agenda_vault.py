"""Builds PrompTugal's reader vault with the real sgit CLI on a running SG/Send server: a vault whose
`apps/agenda/picks.json` holds the website's schedule mirror, as the website writes it. Prints the read key string.

Usage: python make_agenda_vault.py <sgit> <server-url> <work-folder>
       python make_agenda_vault.py <sgit> <server-url> <work-folder> --grow   (a vault that grows: the first call
       makes it with one commit and prints its read key; each later call pushes one more commit)
The keys are throwaway keys made for this run; nothing here is committed."""

import hashlib
import json
import os
import secrets
import shutil
import string
import sys

# The shared helper module (Servers/common/standin), found from this file: the script is also run on its own.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "common"))
from standin.sgit_cli import SgitCLI

SGIT, SERVER, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
HOME = os.path.join(OUT, "home")


sgit = SgitCLI(SGIT, SERVER, HOME)


def make(name, files):
    phrase = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(24))
    vid = "pt" + "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(10))
    sgit("create", name, "--vault-key", f"sgit_private_vault_{phrase}:{vid}", cwd=OUT)
    hexkey = hashlib.pbkdf2_hmac("sha256", phrase.encode(), f"sg-vault-v1:{vid}".encode(), 600_000, 32).hex()
    folder = os.path.join(OUT, name)
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(folder, rel)) or folder, exist_ok=True)
        with open(os.path.join(folder, rel), "w") as handle:
            handle.write(text)
    sgit("commit", "-m", "mirror the schedule", cwd=folder)
    sgit("push", cwd=folder)
    return f"sgit_private_read_{hexkey}:{vid}"


def grow():
    folder = os.path.join(OUT, "growing")
    if not os.path.isdir(folder):
        os.makedirs(HOME, exist_ok=True)
        key = make("growing", {"README.md": "# Growing vault\n", "notes/one.txt": "first\n"})
        with open(os.path.join(OUT, "key"), "w") as handle:
            handle.write(key)
        print(key)
        return
    count = len(os.listdir(os.path.join(folder, "notes"))) + 1
    with open(os.path.join(folder, "notes", f"n{count}.txt"), "w") as handle:
        handle.write(f"note {count}\n")
    sgit("commit", "-m", f"add note {count}", cwd=folder)
    sgit("push", cwd=folder)
    with open(os.path.join(OUT, "key")) as handle:
        print(handle.read())


def main():
    if len(sys.argv) > 4 and sys.argv[4] == "--grow":
        return grow()
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(HOME)
    readme = "# Reader vault\n\nThe website mirrors the schedule here.\n"
    picks = {
        "v": 1,
        "picks": [
            {"id": "ai-doom-or-boom", "at": "2026-11-08T02:45:00.000Z"},
            {"id": "web-vault-pick", "at": 1794106000000},
        ],
    }
    good = make("reader", {"README.md": readme, "apps/agenda/picks.json": json.dumps(picks)})
    broken = make("broken", {"README.md": readme, "apps/agenda/picks.json": '{"v": 7, "picks": "later"}'})
    print(good)
    print(broken)


if __name__ == "__main__":
    main()
