# SPDX-License-Identifier: MIT
"""``rolloutnorm explain``: a batch file read, run through a trainer step's code, and shown.

Each layer imports only from the layers listed before it, and from rolloutnorm's core:

- reading: ``batch`` (what a file is read into), ``rows`` (the checks of a text row), ``lines``
  (the standard library's line-by-line readers), ``arrow`` (pyarrow's, with the ``columnar``
  extra), ``tensors`` (.pt and .npz), and ``read`` (``read_batch``, by the file's suffix);
- the explanation: ``explanation``, the retention plan and every rollout's mass;
- the renderings: ``table`` (plain text and Markdown), ``schema`` (JSON, under the shipped
  ``explain.schema.json``) and ``plot`` (with the ``plot`` extra);
- the command line: ``cli``, which ``rolloutnorm.__main__`` runs.
"""
