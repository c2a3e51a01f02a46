"""The toolkit's edge with the machine and the user: atomic writes, output
files and temporary files' owners (:mod:`files`), inputs read block by block
(:mod:`streams`), small files read whole, bounded and strict
(:mod:`records`), a user's command under supervision (:mod:`commands`), the
process's signals and standard output (:mod:`process`), the worker pools
(loky, Dask) that run jobs (:mod:`pools`), and the checks of the values a
user gives (:mod:`arguments`).
"""
