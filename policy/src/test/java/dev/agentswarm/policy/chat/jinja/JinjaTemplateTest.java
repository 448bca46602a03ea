package dev.agentswarm.policy.chat.jinja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentswarm.core.json.Json;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The interpreter, construct by construct. Each expected output is what Python Jinja2 3.1 printed
 * for the same template and variables in transformers' environment (trim_blocks, lstrip_blocks).
 */
class JinjaTemplateTest {

    /** Template, variables as JSON, Python Jinja2's output. */
    private static final String[][] CASES = {
                {"{% if true %}\n  yes\n{% endif %}\nend",
                        "{}",
                        "  yes\nend"},
                {"  {% if true %}x{% endif %}  \n  {%+ if true %}y{% endif %}",
                        "{}",
                        "x  \n  y"},
                {"a  {%- if true -%}  b  {%- endif -%}  c",
                        "{}",
                        "abc"},
                {"{{ 'a' }}\n{{ 'b' }}\n",
                        "{}",
                        "a\nb"},
                {"{# c #}\nx {#- c -#} y",
                        "{}",
                        "xy"},
                {"{{ xs[::-1] }}|{{ xs[1:] }}|{{ xs[:-1] }}|{{ xs[::2] }}|{{ 'héllo'[1:3] }}|{{ 'abc'[::-1] }}",
                        "{\"xs\": [1, 2, 3, 4]}",
                        "[4, 3, 2, 1]|[2, 3, 4]|[1, 2, 3]|[1, 3]|él|cba"},
                {"{{ s.startswith('<th') }}{{ s.endswith(('x', 'k>')) }}{{ s.split('</think>')[0].rstrip('\\n') }}|{{ s.lstrip('<') }}|{{ ' a b  '.split() }}|{{ 'a,b,,c'.split(',') }}|{{ 'a b c'.rsplit(' ', 1) }}",
                        "{\"s\": \"<think>\\nx\\n</think>\"}",
                        "TrueTrue<think>\nx|think>\nx\n</think>|['a', 'b']|['a', 'b', '', 'c']|['a b', 'c']"},
                {"{% set ns = namespace(found=false, n=0) %}{% for m in ms %}{% if m == 2 %}{% set ns.found = true %}{% endif %}{% set ns.n = ns.n + m %}{% set local = m %}{% endfor %}{{ ns.found }} {{ ns.n }} {{ local is defined }}",
                        "{\"ms\": [1, 2, 3]}",
                        "True 6 False"},
                {"{% for x in xs %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.first }}/{{ loop.last }}/{{ loop.length }}/{{ loop.previtem }}/{{ loop.cycle('a','b') }};{% else %}empty{% endfor %}",
                        "{\"xs\": [\"p\", \"q\"]}",
                        "1/0/2/True/False/2//a;2/1/1/False/True/2/p/b;"},
                {"{% for x in xs %}x{% else %}empty{% endfor %}",
                        "{\"xs\": []}",
                        "empty"},
                {"{% for x in xs if x > 1 %}{{ x }}{% if x == 3 %}{% break %}{% endif %}{% endfor %}|{% for x in xs %}{% if x is odd %}{% continue %}{% endif %}{{ x }}{% endfor %}",
                        "{\"xs\": [1, 2, 3, 4]}",
                        "23|24"},
                {"{{ d | tojson }}|{{ d | tojson(indent=2) }}|{{ d|tojson(separators=(',', ':')) }}|{{ d|tojson(sort_keys=true) }}|{{ 'ü\"\\n'|tojson }}|{{ 'ü'|tojson(ensure_ascii=true) }}",
                        "{\"d\": {\"b\": [1, 2.5, true, null], \"a\": {}, \"c\": []}}",
                        "{\"b\": [1, 2.5, true, null], \"a\": {}, \"c\": []}|{\n  \"b\": [\n    1,\n    2.5,\n    true,\n    null\n  ],\n  \"a\": {},\n  \"c\": []\n}|{\"b\":[1,2.5,true,null],\"a\":{},\"c\":[]}|{\"a\": {}, \"b\": [1, 2.5, true, null], \"c\": []}|\"ü\\\"\\n\"|\"\\u00fc\""},
                {"{{ 7 / 2 }} {{ 7 // 2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 1.0 }} {{ 1e20 }} {{ 0.0001 }} {{ none }} {{ true }} {{ [1, 'a', none] }} {{ {'k': 'v'} }} {{ 3 ~ 'x' }}",
                        "{}",
                        "3.5 3 2 1024 1.0 1e+20 0.0001 None True [1, 'a', None] {'k': 'v'} 3x"},
                {"{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 'z' not in 'cat' }} {{ 1 == 1.0 }} {{ 1 < 2 < 3 }} {{ 'b' > 'a' }}",
                        "{}",
                        "True True True True True True True"},
                {"{{ x is defined }} {{ y is none }} {{ s is string }} {{ d is mapping }} {{ l is iterable }} {{ s is iterable }} {{ 3 is number }} {{ l is sequence }} {{ true is true }} {{ 4 is divisibleby 2 }} {{ s is not string }}",
                        "{\"y\": null, \"s\": \"x\", \"d\": {}, \"l\": []}",
                        "False True True True True True True True True True False"},
                {"{{ '  x  '|trim }}|{{ xs|length }}|{{ xs|first }}|{{ xs|last }}|{{ xs|join(', ') }}|{{ 'aB'|upper }}{{ 'aB'|lower }}|{{ u|default('dflt') }}|{{ ''|default('e', true) }}|{{ d|items|list }}|{{ 'abc'|list }}",
                        "{\"xs\": [1, 2, 3], \"d\": {\"a\": 1}}",
                        "x|3|1|3|1, 2, 3|ABab|dflt|e|[('a', 1)]|['a', 'b', 'c']"},
                {"{{ ms|selectattr('role', 'equalto', 'user')|map(attribute='content')|join(',') }}|{{ ms|rejectattr('role', 'eq', 'user')|list|length }}|{{ ms|map(attribute='role')|unique|list }}",
                        "{\"ms\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", \"content\": \"b\"}, {\"role\": \"user\", \"content\": \"c\"}]}",
                        "a,c|1|['user', 'assistant']"},
                {"{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('Ann') }} {{ greet('Bo', punct='?') }}",
                        "{}",
                        "Hi Ann! Hi Bo?"},
                {"{% set x %}captured {{ 1 + 1 }}{% endset %}[{{ x }}]{% set a, b = 1, 2 %}{{ a }}{{ b }}",
                        "{}",
                        "[captured 2]12"},
                {"{{ d.get('k', 'none') }} {{ d.get('z', 'dflt') }} {{ d.items()|list }} {{ d.keys()|list }} {{ d['k'] }} {{ d.k }} {{ d.missing is defined }}",
                        "{\"d\": {\"k\": \"v\"}}",
                        "v dflt [('k', 'v')] ['k'] v v False"},
                {"{{ 'Hello World'.title() }} {{ 'hello'.capitalize() }} {{ 'a-b-c'.replace('-', '+', 1) }} {{ 'abc'.find('c') }} {{ '{} and {}'.format(1, 'x') }} {{ 'x=%s' % 5 }}",
                        "{}",
                        "Hello World Hello a+b-c 2 1 and x x=5"},
                {"{% raw %}{{ not rendered }}{% endraw %}",
                        "{}",
                        "{{ not rendered }}"},
                {"{{ m['content'] | trim + '|' }}",
                        "{\"m\": {\"content\": \"  hi  \"}}",
                        "hi|"},
                {"{%- for m in messages %}{{- m.role }}{%- endfor %}\n\n  {% if x %}\n    yes\n  {% endif %}\n",
                        "{\"messages\": [{\"role\": \"a\"}, {\"role\": \"b\"}], \"x\": true}",
                        "ab\n    yes\n"},
                {"{{ 'a' if false }}|{{ 'a' if true else 'b' }}|{{ (1, 2) }}|{{ range(3)|list }}|{{ -3|abs }}|{{ 'x' * 3 }}|{{ [1] + [2] }}",
                        "{}",
                        "|a|(1, 2)|[0, 1, 2]|3|xxx|[1, 2]"},
                {"{{ '\\u00e9\\x41\\t' }}|{{ \"it's\" }}|{{ 'a' 'b' }}",
                        "{}",
                        "éA\t|it's|ab"},
                {"{{ 'ß'.upper() }} {{ 'ǅ'.lower() }} {{ '  \u00a0x\u3000'.strip() }}|{{ 'x\u00a0'|trim }}|",
                        "{}",
                        "SS ǆ x|x|"},
    };

    private static String render(String template, String variablesJson) throws Exception {
        JsonNode vars = Json.MAPPER.readTree(variablesJson);
        Map<String, Object> map = new LinkedHashMap<>();
        vars.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue()));
        return JinjaTemplate.compile(template).render(map);
    }

    @Test
    void rendersAsPythonJinja2Does() throws Exception {
        for (String[] c : CASES) {
            assertEquals(c[2], render(c[0], c[1]), "template: " + c[0]);
        }
    }

    @Test
    void raiseExceptionCarriesTheTemplatesMessage() {
        TemplateError e = assertThrows(TemplateError.class,
                () -> render("line one\n{{ raise_exception('Conversation roles must alternate') }}", "{}"));
        assertTrue(e.getMessage().startsWith("Conversation roles must alternate"), e.getMessage());
        assertEquals(2, e.line());
    }

    @Test
    void errorsNameTheLine() {
        TemplateError syntax = assertThrows(TemplateError.class, () -> JinjaTemplate.compile("ok\n\n{% if x %}never closed"));
        assertTrue(syntax.getMessage().contains("endif"), syntax.getMessage());
        TemplateError unknown = assertThrows(TemplateError.class, () -> JinjaTemplate.compile("a\n{% frobnicate %}"));
        assertEquals(2, unknown.line(), unknown.getMessage());
        TemplateError undefinedAttr = assertThrows(TemplateError.class, () -> render("\n\n{{ nothing.attr }}", "{}"));
        assertEquals(3, undefinedAttr.line(), undefinedAttr.getMessage());
        assertTrue(undefinedAttr.getMessage().contains("'nothing' is undefined"), undefinedAttr.getMessage());
        TemplateError filter = assertThrows(TemplateError.class, () -> render("{{ 1 | nosuchfilter }}", "{}"));
        assertTrue(filter.getMessage().contains("no filter named 'nosuchfilter'"), filter.getMessage());
    }

    @Test
    void inputsCannotBeChangedFromATemplate() {
        TemplateError e = assertThrows(TemplateError.class, () -> render("{{ xs.append(4) }}", "{\"xs\": [1]}"));
        assertTrue(e.getMessage().contains("unsafe"), e.getMessage());
    }

    @Test
    void strftimeNowUsesTheClock() {
        JinjaTemplate t = JinjaTemplate.compile("{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%A %-d %B') }}")
                .withClock(() -> LocalDateTime.of(2024, 7, 6, 9, 30));
        assertEquals("06 Jul 2024|Saturday 6 July", t.render(Map.of()));
    }
}
