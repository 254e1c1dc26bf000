"""The faults a test arms through the control endpoints, one shape for every stand-in.

`POST /_control/fail {"path", "method", "status", "times", "delay_ms", "body", "content_type"}`: the
next `times` requests to `path` (and `method`, when given) wait `delay_ms`, then fail with `status`
without running: the server's own error envelope, or `body` as it is (with `content_type`, default
application/json). With `status` null or 0 they only wait, then run.

`POST /_control/drop-reply {"path", "method", "times"}`: the next `times` requests to `path` run and
are committed, then the connection closes without a byte of the reply: a lost reply.

For both: `path` is the request's path as sent (percent-encoding kept), or "*" for every path;
`times` defaults to 1, null means until a reset, and 0 takes the rule for that path and method away.
Arming a rule replaces the one for the same path and method.
"""

import threading


class Faults:
    def __init__(self):
        self._lock = threading.Lock()
        self._fails: dict[tuple[str, str | None], dict] = {}
        self._drops: dict[tuple[str, str | None], dict] = {}

    def arm_fail(self, spec: dict) -> None:
        """Arms `POST /_control/fail`'s rule; `ValueError` (a sentence) for a bad spec."""
        rule = _rule(spec)
        status = spec.get("status", 500)
        if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
            raise ValueError("status must be a number, or null for a delay only.")
        delay = spec.get("delay_ms") or 0
        if not isinstance(delay, int | float) or delay < 0:
            raise ValueError("delay_ms must be a number of milliseconds.")
        body = spec.get("body")
        if body is not None and not isinstance(body, str):
            raise ValueError("body must be a string.")
        rule.update(
            status=status or None,
            delay_ms=delay,
            body=body,
            content_type=str(spec.get("content_type") or "application/json"),
        )
        self._arm(self._fails, rule)

    def arm_drop(self, spec: dict) -> None:
        """Arms `POST /_control/drop-reply`'s rule; `ValueError` (a sentence) for a bad spec."""
        self._arm(self._drops, _rule(spec))

    def take_fail(self, method: str, path: str) -> dict | None:
        """The failure armed for this request, if any (counted as used)."""
        return self._take(self._fails, method, path)

    def take_drop(self, method: str, path: str) -> bool:
        """Whether this request's reply is to be lost (counted as used)."""
        return self._take(self._drops, method, path) is not None

    def dropping(self) -> bool:
        """Whether a lost reply is armed."""
        with self._lock:
            return bool(self._drops)

    def clear(self) -> None:
        with self._lock:
            self._fails.clear()
            self._drops.clear()

    def _arm(self, rules: dict, rule: dict) -> None:
        key = (rule["path"], rule["method"])
        with self._lock:
            if rule["times"] == 0:
                rules.pop(key, None)
            else:
                rules[key] = rule

    def _take(self, rules: dict, method: str, path: str) -> dict | None:
        with self._lock:
            for key in ((path, method), (path, None), ("*", method), ("*", None)):
                rule = rules.get(key)
                if rule is None:
                    continue
                if rule["times"] is not None:
                    rule["times"] -= 1
                    if rule["times"] <= 0:
                        del rules[key]
                return dict(rule)
            return None


def _rule(spec: dict) -> dict:
    path = spec.get("path")
    if not isinstance(path, str) or not (path.startswith("/") or path == "*"):
        raise ValueError('path must be a path starting with "/", or "*".')
    method = spec.get("method")
    if method is not None and not isinstance(method, str):
        raise ValueError("method must be a string, or null for every method.")
    times = spec.get("times", 1)
    if times is not None and (not isinstance(times, int) or isinstance(times, bool) or times < 0):
        raise ValueError("times must be a count (0 clears the rule), or null for until a reset.")
    return {"path": path, "method": method.upper() if method else None, "times": times}
