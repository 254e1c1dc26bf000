"""The real sgit CLI, as the scripts that build test vaults run it (Servers/sgit, Servers/promptugal):
`SgitCLI(cli_path, server_url, home)("init", ..., cwd=folder)` returns sgit's stdout; a failure prints sgit's
output and exits 1.
"""

import os
import subprocess
import sys


class SgitCLI:
    """`sgit` at `path`, talking to the SG/Send server at `server`, with its own HOME (its settings) in
    `home`; each call may take `timeout` seconds."""

    def __init__(self, path: str, server: str, home: str, timeout: float = 600):
        self.path = path
        self.server = server
        self.home = home
        self.timeout = timeout

    def __call__(self, *args: str, cwd: str) -> str:
        env = dict(os.environ, HOME=self.home, SGIT_DEFAULT_BASE_URL=self.server)
        result = subprocess.run(
            [self.path, "--base-url", self.server, "--token", "localtest", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=self.timeout,
            check=False,
        )
        if result.returncode != 0:
            sys.stderr.write(f"sgit {' '.join(args[:2])} failed:\n{result.stdout}\n{result.stderr}\n")
            raise SystemExit(1)
        return result.stdout
