"""One Python session for the Python blocks of one document, run one after another as a reader would.

Started as ``python pysession.py REQUESTS_FD REPLIES_FD`` in the document's working directory.  Each
request is a line of JSON ``{"name": "README.md:395", "code": "..."}``; the block runs in the
namespace the earlier blocks left, as ``__main__``, and the reply is a line of JSON: ``{"ok": true}``
or ``{"ok": false, "error": TRACEBACK}``.  The blocks' own output goes to this process's standard
output and error, which the caller keeps; requests and replies travel on their own pipes so that
nothing a block or its worker processes print can be mistaken for a reply.
"""

import json
import linecache
import os
import resource
import sys
import traceback


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (worker pools end with their block or later)."""
    return sum(
        u.ru_utime + u.ru_stime
        for u in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )


def main(requests_fd: int, replies_fd: int) -> None:
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    sys.path.insert(0, os.getcwd())  # as `python script.py` run from there would find modules beside it
    with os.fdopen(requests_fd, "r", encoding="utf-8") as requests, os.fdopen(replies_fd, "w") as replies:
        for request in requests:
            block = json.loads(request)
            name, code = block["name"], block["code"]
            linecache.cache[name] = (len(code), None, code.splitlines(keepends=True), name)
            print(f"----- {name}", flush=True)
            print(f"----- {name}", file=sys.stderr, flush=True)
            cpu = _cpu()
            try:
                exec(compile(code, name, "exec"), namespace)
                reply = {"ok": True}
            except BaseException:  # noqa: BLE001 - the reader sees whatever the block raised
                reply = {"ok": False, "error": traceback.format_exc()}
            reply["cpu"] = _cpu() - cpu
            sys.stdout.flush()
            sys.stderr.flush()
            replies.write(json.dumps(reply) + "\n")
            replies.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
