// The official `openai` npm client against `swarm serve`: a plain completion, a streamed one, a
// tool-call round trip and bad requests. Prints one JSON object with what it saw; the JUnit test
// (ServeTest) asserts on it. Usage: node openai-client.mjs OPENAI_MODULE_PATH BASE_URL TOOLS_URL QUEUE_URL
import { pathToFileURL } from 'node:url';

const [modulePath, baseURL, toolsURL, queueURL] = process.argv.slice(2);
const { default: OpenAI } = await import(pathToFileURL(modulePath).href);

const client = new OpenAI({ baseURL, apiKey: 'none', maxRetries: 0 });
const out = {};
const question = [{ role: 'user', content: 'What is 2+3?' }];

const models = await client.models.list();
out.models = models.data.map((m) => m.id);

const plain = await client.chat.completions.create({
  model: 'small', messages: question, temperature: 0, max_tokens: 8, seed: 1,
});
out.plain = { content: plain.choices[0].message.content, finish: plain.choices[0].finish_reason, usage: plain.usage };

const stream = await client.chat.completions.create({
  model: 'small', messages: question, temperature: 0, max_tokens: 8, seed: 1, stream: true,
  stream_options: { include_usage: true },
});
let streamed = '';
let chunks = 0;
let streamFinish = null;
let streamUsage = null;
for await (const chunk of stream) {
  chunks++;
  if (chunk.usage) streamUsage = chunk.usage;
  for (const c of chunk.choices) {
    if (c.delta.content) streamed += c.delta.content;
    if (c.finish_reason) streamFinish = c.finish_reason;
  }
}
out.streamed = { content: streamed, chunks, finish: streamFinish, usage: streamUsage };

const tools = new OpenAI({ baseURL: toolsURL, apiKey: 'none', maxRetries: 0 });
const weather = {
  type: 'function',
  function: {
    name: 'get_weather', description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];
const first = await tools.chat.completions.create({ model: 'scripted', messages, tools: [weather] });
const call = first.choices[0].message.tool_calls[0];
messages.push(first.choices[0].message);
messages.push({ role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' });
const second = await tools.chat.completions.create({ model: 'scripted', messages, tools: [weather] });
// The same first turn, streamed: the call comes as tool_calls deltas.
const toolStream = await tools.chat.completions.create({
  model: 'scripted', messages: messages.slice(0, 1), tools: [weather], stream: true,
});
const deltas = [];
let toolStreamFinish = null;
for await (const chunk of toolStream) {
  for (const c of chunk.choices) {
    for (const d of c.delta.tool_calls ?? []) deltas.push(d);
    if (c.finish_reason) toolStreamFinish = c.finish_reason;
  }
}
out.tools = {
  finish: first.choices[0].finish_reason,
  name: call.function.name,
  arguments: JSON.parse(call.function.arguments),
  id: call.id,
  answer: second.choices[0].message.content,
  streamedName: deltas.find((d) => d.function?.name)?.function.name ?? null,
  streamedArguments: deltas.map((d) => d.function?.arguments ?? '').join(''),
  streamedFinish: toolStreamFinish,
};

async function failure(promise) {
  try {
    await promise;
    return { status: 200 };
  } catch (e) {
    return { status: e.status, param: e.param ?? null, code: e.code ?? null, type: e.type ?? null };
  }
}
out.badTemperature = await failure(client.chat.completions.create({ model: 'small', messages: question, temperature: 3 }));
out.badRole = await failure(client.chat.completions.create({ model: 'small', messages: [{ role: 'robot', content: 'x' }] }));
out.unknownModel = await failure(client.chat.completions.create({ model: 'gpt-9', messages: question }));

const queue = new OpenAI({ baseURL: queueURL, apiKey: 'none', maxRetries: 0 });
const burst = await Promise.all(Array.from({ length: 6 }, () => failure(
  queue.chat.completions.create({ model: 'tiny-queue', messages: question, max_tokens: 48 }))));
out.burst = burst.map((b) => b.status);
out.burstCodes = burst.map((b) => b.code);

console.log(JSON.stringify(out));
