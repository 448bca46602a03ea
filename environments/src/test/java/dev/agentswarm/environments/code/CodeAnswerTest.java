package dev.agentswarm.environments.code;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CodeAnswerTest {

    @Test
    void theLastPythonBlockDefiningTheFunctionIsTheAnswer() {
        String answer = "First try:\n```python\ndef f(x):\n    return 0\n```\nA usage example:\n```python\nprint(f(2))\n```\n"
                + "Final version:\n```py\ndef f(x):\n    return x * 2\n```\nDone.";
        CodeAnswer a = CodeAnswer.find(answer, "f");
        assertEquals("def f(x):\n    return x * 2\n", a.code());
        assertTrue(a.asAsked());
    }

    @Test
    void otherLanguagesAndHelpersAreSkipped() {
        String answer = "```bash\ndef f() { echo; }\n```\n```python\nimport math\n\ndef f_helper(y):\n    return y\n\ndef f (x):\n    return 1\n```";
        assertTrue(CodeAnswer.find(answer, "f").code().startsWith("import math"));
        assertNull(CodeAnswer.find("```bash\necho hi\n```", "f"), "no Python at all");
    }

    @Test
    void codeOutsideTheAskedFormIsGradedButNotAsAsked() {
        CodeAnswer bare = CodeAnswer.find("def f(x):\n    return x", "f");
        assertEquals("def f(x):\n    return x", bare.code());
        assertFalse(bare.asAsked());
        CodeAnswer wrongName = CodeAnswer.find("```python\ndef g(x):\n    return x\n```", "f");
        assertEquals("def g(x):\n    return x\n", wrongName.code(), "graded (and failing), not silently dropped");
        assertFalse(wrongName.asAsked());
        CodeAnswer unclosed = CodeAnswer.find("```python\ndef f(x):\n    return x\n", "f");
        assertEquals("def f(x):\n    return x\n", unclosed.code(), "a block cut by the token limit still counts");
    }

    @Test
    void prosePlainNumbersAndNothingAreNoCode() {
        assertNull(CodeAnswer.find("The function doubles its input.", "f"));
        assertNull(CodeAnswer.find("42", "f"));
        assertNull(CodeAnswer.find("", "f"));
        assertNull(CodeAnswer.find(null, "f"));
        assertNull(CodeAnswer.find("use define f(x) to double", "f"));
    }
}
