"""Transcriptions of the official scoring scripts and peer packages, and the generated inputs they run on.

Each module is one reference, transcribed line by line from a public source named in its docstring
(repository and file): the tests compare the library against them, the benchmarks time them. Never
imported by the library. The codebleu modules are also run as scripts by their own virtual
environments (``isolated.run``), so they import nothing from the main venv there.
"""
