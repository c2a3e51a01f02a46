"""committee: difficulty-weighted evaluation of Chinese word segmentation.

A committee of CRF segmenters estimates how hard each test word is; the
balanced metrics of Qian, Qiu & Huang (ACL 2016) weight each word by that
difficulty.  See ``docs/`` and ``README.md``.
"""

__version__ = "0.1.0"
