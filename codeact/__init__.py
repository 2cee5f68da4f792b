"""codeact: agents that act by writing Python.

The message and usage models are re-exported here; model clients live in
`codeact.models`.
"""

from codeact.messages import Message
from codeact.usage import LlmUsage

__all__ = ["LlmUsage", "Message"]
