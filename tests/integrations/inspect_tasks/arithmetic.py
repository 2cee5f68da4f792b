"""A small Inspect task for codeact_agent: one tool, given by the task's setup (which
runs whichever solver is chosen), and a mockllm model whose replies are Python."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import use_tools
from inspect_ai.tool import Tool, tool

FENCE = "`" * 3
#: Where multiply() records its calls: it runs in the eval's process.
CALLS: list[tuple[int, int]] = []


@tool
def multiply() -> Tool:
    async def execute(a: int, b: int) -> int:
        """Multiply two whole numbers.

        Args:
            a: The first factor.
            b: The second factor.
        """
        CALLS.append((a, b))
        return a * b

    return execute


def reply(text: str) -> ModelOutput:
    """A mockllm reply with its usage given (mockllm would otherwise count tokens with
    tiktoken, whose encodings are downloaded on first use)."""
    output = ModelOutput.from_content("mockllm/model", text)
    output.usage = ModelUsage(input_tokens=50, output_tokens=20, total_tokens=70)
    return output


def replies() -> list[ModelOutput]:
    """What mockllm answers, in order: a mistake, then its fix."""
    code = [
        "product = multiply(6, '7 apples')",
        "product = multiply(6, 7)\nprint('product is', product)\nfinal_result(str(product))",
    ]
    return [reply(f"I'll multiply.\n{FENCE}python\n{c}\n{FENCE}") for c in code]


@task
def arithmetic() -> Task:
    return Task(
        dataset=[Sample(input="What is 6 times 7? Answer with the number.", target="42")],
        setup=use_tools(multiply()),
        scorer=match(),
        model=get_model("mockllm/model", custom_outputs=replies()),
    )
