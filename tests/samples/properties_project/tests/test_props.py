# SPDX-License-Identifier: MIT
import docpact

from shares import share


@docpact.claim("share-sums")
def test_share_sums():
    for tokens in (1, 2, 5):
        for rows in (1, 3):
            assert abs(tokens * share(tokens, rows) - 1 / rows) < 1e-12
