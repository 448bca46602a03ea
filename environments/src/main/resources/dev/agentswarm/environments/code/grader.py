# Grades a solution against hidden tests, in a sandbox. Read by CodeGrader; input is one JSON object
# on stdin.
#
#   {"mode": "expected", "problems": {id: [test, ...]}}  (trusted: the tests only, no solution)
#     Each test must be `assert CALL == LITERAL`. Prints one line {"checks": {id: [{"call": CALL,
#     "expected": VALUE} or {"error": why}, ...]}}.
#   {"mode": "run", "solution": SOURCE, "calls": [CALL, ...], "seconds": S}  (untrusted)
#     For each call, in a fresh namespace: run the solution, evaluate the call, print
#     {"i": i, "v": VALUE} or {"i": i, "error": name}, one line each, within S seconds.
#
# The expected values never enter the untrusted run: the solution can fake what it prints, but it
# cannot know what it should print. VALUE is a canonical JSON form under which two values are
# equal exactly when Python's == says so for the literals tests use (1 == 1.0 == True, tuples are
# not lists, sets and dicts ignore order).
import ast
import io
import json
import signal
import sys


def canon(v, depth=0):
    if depth > 64:
        raise RecursionError("value nested too deep")
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return {"n": "1" if v else "0"}
    if isinstance(v, int):
        return {"n": str(v)}
    if isinstance(v, float):
        if v != v:
            return {"nan": True}
        if v in (float("inf"), float("-inf")):
            return {"inf": "+" if v > 0 else "-"}
        return {"n": str(int(v))} if v.is_integer() else {"n": repr(v)}
    if isinstance(v, complex):
        return canon(v.real, depth) if v.imag == 0 else {"complex": [canon(v.real, depth), canon(v.imag, depth)]}
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, list):
        return {"list": [canon(x, depth + 1) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [canon(x, depth + 1) for x in v]}
    if isinstance(v, (set, frozenset)):
        return {"set": sorted((canon(x, depth + 1) for x in v), key=order)}
    if isinstance(v, dict):
        return {"dict": sorted(([canon(k, depth + 1), canon(x, depth + 1)] for k, x in v.items()), key=lambda p: order(p[0]))}
    return {"object": type(v).__name__}


def order(c):
    return json.dumps(c, sort_keys=True)


def check(test):
    try:
        tree = ast.parse(test, mode="exec")
    except SyntaxError as e:
        return {"error": "not Python: " + str(e.msg)}
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return {"error": "not one assert statement"}
    cmp = tree.body[0].test
    if not (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.Eq)):
        return {"error": "not `assert CALL == LITERAL`"}
    try:
        expected = ast.literal_eval(cmp.comparators[0])
    except ValueError:
        return {"error": "the right side is not a literal"}
    return {"call": ast.get_source_segment(test, cmp.left), "expected": canon(expected)}


class Timeout(BaseException):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def run(solution, calls, seconds):
    out = sys.stdout
    # What the solution prints is not a result: it goes nowhere.
    sys.stdout = sys.stderr = io.StringIO()
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        code = compile(solution, "<solution>", "exec")
    except (SyntaxError, ValueError) as e:
        code = None
        failure = type(e).__name__
    for i, call in enumerate(calls):
        result = {"i": i}
        try:
            if code is None:
                result["error"] = failure
            else:
                signal.setitimer(signal.ITIMER_REAL, seconds)
                try:
                    ns = {"__name__": "solution"}
                    exec(code, ns)
                    result["v"] = canon(eval(call, ns))
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException as e:
            result["error"] = type(e).__name__
        sys.stdout = sys.stderr = io.StringIO()
        out.write(json.dumps(result) + "\n")
        out.flush()


request = json.loads(sys.stdin.read())
if request["mode"] == "expected":
    print(json.dumps({"checks": {pid: [check(t) for t in tests] for pid, tests in request["problems"].items()}}))
else:
    run(request["solution"], request["calls"], float(request["seconds"]))
