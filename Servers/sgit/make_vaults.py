"""Builds the CompanionVault test vaults with the real sgit CLI against a running SG/Send server, and writes a
manifest the Swift tests read. `scripts/servers start sgit` runs it with the CLI, the server URL and the output folder.

Every file is written here, committed and pushed with `sgit`, and recorded with its sha256 at every commit, so the
Swift reader can be checked byte for byte against what the real CLI stored. Keys in the manifest are throwaway
test keys made for this run."""

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
BIG_MB = float(os.environ.get("SGIT_BIG_FILE_MB", "10.5"))
WORK = os.path.join(OUT, "work")
HOME = os.path.join(OUT, "home")


sgit = SgitCLI(SGIT, SERVER, HOME)


def passphrase():
    return "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(24))


def vault_id():
    return "cv" + "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(10))


def read_key_hex(phrase, vid):
    return hashlib.pbkdf2_hmac("sha256", phrase.encode(), f"sg-vault-v1:{vid}".encode(), 600_000, 32).hex()


def snapshot(folder):
    files = {}
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".sg_vault"]
        for name in names:
            full = os.path.join(root, name)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            with open(full, "rb") as handle:
                data = handle.read()
            files[rel] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    return files


def write(folder, rel, data):
    path = os.path.join(folder, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode())


def remove(folder, rel):
    os.remove(os.path.join(folder, rel))


class Vault:
    def __init__(self, name, access, packs=False):
        self.name, self.access, self.packs = name, access, packs
        self.phrase, self.vid = passphrase(), vault_id()
        self.vault_key = f"sgit_private_vault_{self.phrase}:{self.vid}"
        args = ["create", name, "--vault-key", self.vault_key] + (["--packs"] if packs else [])
        out = sgit(*args, cwd=WORK)
        printed = [line.split("Read key:", 1)[1].split()[0] for line in out.splitlines() if "Read key:" in line]
        computed = "sgit_private_read_" + read_key_hex(self.phrase, self.vid)
        if printed and printed[0] != computed:
            raise SystemExit(f"{name}: the CLI's read key differs from PBKDF2's")
        self.read_key = f"{computed}:{self.vid}"
        self.folder = os.path.join(WORK, name)
        self.branch = "current"
        self.branches = {"current": [{"message": "init", "files": {}}]}

    def commit(self, message, push=True):
        sgit("commit", "-m", message, cwd=self.folder)
        if push:
            sgit("push", cwd=self.folder)
        self.branches[self.branch].append({"message": message, "files": snapshot(self.folder)})

    def manifest(self):
        return {
            "name": self.name,
            "vault_id": self.vid,
            "packs": self.packs,
            "access": self.access,
            "key_string": self.read_key if self.access == "read" else self.vault_key,
            "read_key_string": self.read_key,
            "vault_key_string": self.vault_key,
            "branches": {name: list(reversed(commits)) for name, commits in self.branches.items()},
            "working_copy": self.folder,
        }


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(WORK)
    os.makedirs(HOME)
    rng = secrets.SystemRandom()
    vaults = []

    # 1. Nested paths, binary, unicode names, edits, a rename, deletions, an empty file, a >= 10 MB file.
    v = Vault("main", "read")
    f = v.folder
    write(f, "README.md", "# Main vault\n\nFirst version.\n")
    write(f, "docs/guide/deep/intro.md", "Deeply nested introduction.\n" * 20)
    write(f, "data/blob.bin", bytes(rng.getrandbits(8) for _ in range(70_000)))
    write(f, "data/all-bytes.bin", bytes(range(256)) * 4)
    write(f, "unicodé/naïve ✓ file.txt", "Olá, café, ✓, 日本語\n")
    write(f, "emoji 🎉 party.md", "🎉🎉🎉\n")
    write(f, "with space/and more.txt", "spaces in names\n")
    v.commit("add nested, binary and unicode files")
    write(f, "README.md", "# Main vault\n\nSecond version, edited.\n")
    os.makedirs(os.path.join(f, "docs/renamed"), exist_ok=True)
    os.rename(os.path.join(f, "docs/guide/deep/intro.md"), os.path.join(f, "docs/renamed/intro-moved.md"))
    remove(f, "data/blob.bin")
    write(f, "big/large.bin", os.urandom(int(BIG_MB * 1024 * 1024)))
    v.commit("edit readme, rename intro, delete blob, add a large file")
    write(f, "unicodé/naïve ✓ file.txt", "Olá again, edited ✓\n")
    remove(f, "emoji 🎉 party.md")
    write(f, "empty.txt", b"")
    v.commit("edit unicode file, delete emoji file, add an empty file")
    vaults.append(v)

    # 2. An empty vault, read with the vault key. `sgit create` alone uploads nothing (the server then answers 404,
    #    and `sgit clone` says "not found" too), so the empty head is made by adding a file and removing it again.
    v = Vault("empty", "vault")
    write(v.folder, "placeholder.txt", "soon gone\n")
    v.commit("add a placeholder")
    remove(v.folder, "placeholder.txt")
    v.commit("remove it: the head tree is empty")
    vaults.append(v)
    # 2b. A vault that was created but never pushed: nothing on the server at all.
    vaults.append(Vault("unpushed", "read"))

    # 3. A pack vault: objects only inside zips; compressible text (envelope v2) and random bytes (v1).
    v = Vault("pack", "read", packs=True)
    f = v.folder
    write(f, "text/compressible.txt", "all work and no play makes a dull vault\n" * 500)
    write(f, "random.bin", os.urandom(40_000))
    write(f, "nested/a/b/c.json", json.dumps({"deep": True, "list": list(range(50))}))
    v.commit("pack: first files")
    write(f, "text/compressible.txt", "edited and still compressible\n" * 800)
    remove(f, "random.bin")
    write(f, "nested/a/new ✓.md", "new in the second push\n")
    v.commit("pack: edit, delete, add")
    write(f, "third.txt", "third push\n")
    v.commit("pack: third push")
    vaults.append(v)

    # 4. A second named branch merged back: a merge commit with two parents. Read with the vault key.
    v = Vault("merge", "vault")
    f = v.folder
    write(f, "base.txt", "base\n")
    v.commit("base")
    sgit("branch", "new", "feature", cwd=f)
    v.branch = "feature"
    v.branches["feature"] = list(v.branches["current"])
    write(f, "feature/work.txt", "work on the feature branch\n")
    write(f, "base.txt", "base, edited on feature\n")
    v.commit("feature work")
    sgit("branch", "switch", "current", cwd=f)
    v.branch = "current"
    write(f, "main-only.txt", "work on current\n")
    v.commit("main work")
    sgit("branch", "merge", "feature", cwd=f)
    sgit("push", cwd=f)
    log = sgit("history", "log", cwd=f)
    merge_message = next(
        (line.split("(HEAD)", 1)[1].strip().split("  ")[0] for line in log.splitlines() if "(HEAD)" in line),
        "Merge feature",
    )
    v.branches["current"].append({"message": merge_message, "files": snapshot(f), "merge": True})
    vaults.append(v)

    # 5. A vault the tests push to (through its kept working copy) to check that a second pull fetches only new objects.
    v = Vault("incremental", "read")
    write(v.folder, "one.txt", "first\n")
    write(v.folder, "dir/two.txt", "second\n")
    v.commit("incremental: first")
    vaults.append(v)

    manifest = {"server_url": SERVER, "vaults": [vault.manifest() for vault in vaults]}
    with open(os.path.join(OUT, "manifest.json"), "w") as handle:
        json.dump(manifest, handle, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
