"""The sandbox inside other agent frameworks, one module per framework.

Each module imports its framework, which is an optional extra: install
``codeact[smolagents]``, ``codeact[langgraph]``, ``codeact[autogen]`` or
``codeact[inspect]`` and import the module by its full name, e.g.
``from codeact.integrations.smolagents import CodeactExecutor``.

- :mod:`codeact.integrations.smolagents`: ``CodeactExecutor`` (a ``PythonExecutor``)
  and ``CodeactCodeAgent`` (a ``CodeAgent`` that uses it).
- :mod:`codeact.integrations.langgraph`: ``eval_fn(sandbox)`` for
  ``langgraph_codeact.create_codeact``.
- :mod:`codeact.integrations.autogen`: ``CodeactCodeExecutor``, an AutoGen
  ``CodeExecutor``.
- :mod:`codeact.integrations.inspect`: ``codeact_agent()``, an Inspect AI agent.
- :mod:`codeact.integrations.variables`: variables in and out of a session, shared by
  the executors above.
"""
