# The interpreter of a stateful sandbox session. It runs inside the sandbox and talks to the JVM
# over its original stdin/stdout, moved to private descriptors: one JSON request per line in, one
# JSON reply per line out. Cells run with stdin on /dev/null and stdout/stderr on pipes whose
# readers keep at most MAX_OUTPUT bytes each, so a cell can print without bound and never block.
# Python cells share one namespace (variables live on between calls); bash cells run as children
# under the same limits and share the work folder. A cell is interrupted at its wall or CPU limit
# by an exception the cell's own `except Exception` does not catch, so the session survives it;
# the JVM kills the whole session when a cell will not stop.
import ast, base64, builtins, itertools, json, linecache, os, resource, signal, subprocess, sys, threading, traceback

MAX_OUTPUT = int(sys.argv[1])
CPU_SECONDS = int(sys.argv[2])
MAX_FILE = int(sys.argv[3])

requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
null_in = os.open(os.devnull, os.O_RDONLY)
null_out = os.open(os.devnull, os.O_WRONLY)
os.dup2(null_in, 0)
os.dup2(null_out, 1)
os.dup2(null_out, 2)
sys.stdin = open(os.devnull, "r")
work = os.getcwd()
namespace = {"__name__": "__main__", "__builtins__": builtins}


class WallLimit(BaseException):
    """The cell ran past its wall-clock limit."""


class CpuLimit(BaseException):
    """The cell used up its CPU seconds."""


def on_alarm(signum, frame):
    raise WallLimit("wall-clock limit reached")


def on_xcpu(signum, frame):
    raise CpuLimit("CPU time limit reached")


signal.signal(signal.SIGALRM, on_alarm)
signal.signal(signal.SIGXCPU, on_xcpu)
# A write past the file-size limit fails with EFBIG instead of killing the interpreter.
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class Capture(threading.Thread):
    def __init__(self, fd):
        super().__init__(daemon=True)
        self.fd, self.kept, self.dropped = fd, bytearray(), 0

    def run(self):
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            room = max(0, MAX_OUTPUT - len(self.kept))
            self.kept += chunk[:room]
            self.dropped += len(chunk) - min(room, len(chunk))
        os.close(self.fd)


def cpu_used():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


cells = itertools.count(1)


def run_python(code):
    # Each cell gets its own file name, known to linecache, so tracebacks show the cell's lines,
    # also for functions defined in an earlier cell.
    name = "<cell %d>" % next(cells)
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    tree = ast.parse(code, name, "exec")
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, name, "exec"), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), name, "eval"), namespace)
        if value is not None:
            print(repr(value))
    return 0


def print_error(e):
    """The traceback from the cell's first frame on: the driver's own frames are not the user's business."""
    tb = e.__traceback__
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith("<cell "):
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb)


def run_bash(code, timeout):
    cmd = ["prlimit", "--cpu=%d:%d" % (CPU_SECONDS, CPU_SECONDS + 1), "--",
           "/bin/bash", "--noprofile", "--norc", "-c", code]
    child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        return child.wait()
    except BaseException:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        raise


def execute(request):
    timeout = float(request.get("timeout", 10))
    lang = request.get("lang", "python")
    captures = []
    for fd in (1, 2):
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        captures.append(Capture(r))
    for c in captures:
        c.start()
    limit, code = "NONE", 0
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    # RLIMIT_CPU counts whole seconds of the process's total: round up, or a cell after one that
    # used 1.98 s would get 0.02 s instead of its CPU_SECONDS.
    budget = -(-int(cpu_used() * 1000) // 1000) + CPU_SECONDS
    resource.setrlimit(resource.RLIMIT_CPU, (budget if hard == resource.RLIM_INFINITY else min(budget, hard), hard))
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            code = run_python(request["code"]) if lang == "python" else run_bash(request["code"], timeout)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except WallLimit:
        limit, code = "WALL_TIME", 124
        print("WallLimit: the cell ran past its %g s limit and was interrupted; variables are kept" % timeout, file=sys.stderr)
    except CpuLimit:
        limit, code = "CPU_TIME", 152
        print("CpuLimit: the cell used its %d CPU seconds and was interrupted; variables are kept" % CPU_SECONDS, file=sys.stderr)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException as e:
        code = 1
        if isinstance(e, MemoryError):
            limit = "MEMORY"
        elif isinstance(e, OSError) and e.errno == 27:
            limit = "FILE_SIZE"
        print_error(e)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os.dup2(null_out, 1)
        os.dup2(null_out, 2)
    if lang == "bash" and limit == "NONE":
        code = 128 - code if code < 0 else code  # killed by a signal: the shell's convention
        if code in (128 + signal.SIGXCPU, 128 + signal.SIGKILL):
            limit = "CPU_TIME"
        elif code == 128 + signal.SIGXFSZ:
            limit = "FILE_SIZE"
    # A child that outlives the cell keeps its pipe open: its output is not waited for.
    for c in captures:
        c.join(0.2)
    out, err = captures
    if limit == "NONE" and (out.dropped or err.dropped):
        limit = "OUTPUT"
    return {"exit": code, "limit": limit,
            "stdout": out.kept.decode("utf-8", "replace"), "stderr": err.kept.decode("utf-8", "replace"),
            "stdout_dropped": out.dropped, "stderr_dropped": err.dropped}


def inside(path):
    full = os.path.realpath(os.path.join(work, path))
    if full != work and not full.startswith(work + os.sep):
        raise ValueError("%s is outside the work folder" % path)
    return full


def put(request):
    full = inside(request["path"])
    data = base64.b64decode(request["data"])
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)
    return {"ok": True, "bytes": len(data)}


def get(request):
    full = inside(request["path"])
    size = os.path.getsize(full)
    if size > MAX_FILE:
        raise ValueError("%s is %d bytes; at most %d can be taken out" % (request["path"], size, MAX_FILE))
    with open(full, "rb") as f:
        return {"ok": True, "data": base64.b64encode(f.read()).decode("ascii")}


OPS = {"exec": execute, "put": put, "get": get}


def reply(obj):
    replies.write(json.dumps(obj) + "\n")
    replies.flush()


reply({"ready": True, "pid": os.getpid()})
for line in requests:
    try:
        request = json.loads(line)
        answer = OPS[request["op"]](request)
    except Exception as e:
        answer = {"error": "%s: %s" % (type(e).__name__, e)}
    reply(answer)
