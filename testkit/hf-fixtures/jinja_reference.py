"""Renders chat templates with Python Jinja2 set up as Hugging Face transformers sets it up for
apply_chat_template (sandboxed, trim_blocks, lstrip_blocks, loop controls, a json.dumps tojson,
raise_exception and strftime_now), one JSON line in, one JSON line out:
  {"template": "...", "config": {tokenizer_config.json}, "messages": [...], "tools": [...] | null,
   "add_generation_prompt": true, "kwargs": {...}}  ->  {"text": "..."} or {"error": "..."}
The template's variables are the config's special tokens, then the kwargs, as transformers passes them.
"""
import json
import sys
from datetime import datetime

import jinja2
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


class Generation(Extension):
    """{% generation %}…{% endgeneration %} renders its body (transformers tracks its span)."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


ENV = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])
ENV.filters["tojson"] = tojson
ENV.globals["raise_exception"] = raise_exception
ENV.globals["strftime_now"] = strftime_now
SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]
compiled = {}


def token_text(t):
    return t.get("content") if isinstance(t, dict) else t


def render(req):
    template = req["template"]
    if template not in compiled:
        compiled[template] = ENV.from_string(template)
    config = req.get("config") or {}
    variables = {}
    for name in SPECIAL:
        if config.get(name) is not None:
            variables[name] = token_text(config[name])
    if config.get("additional_special_tokens"):
        variables["additional_special_tokens"] = [token_text(t) for t in config["additional_special_tokens"]]
    variables.update(req.get("kwargs") or {})
    return compiled[template].render(messages=req["messages"], tools=req.get("tools"), documents=None,
                                     add_generation_prompt=bool(req.get("add_generation_prompt")), **variables)


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        out = {"text": render(json.loads(line))}
    except Exception as e:  # the Java side compares error presence, not wording
        out = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
