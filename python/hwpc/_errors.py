"""hwpc.DecodeError: bad input, with the tool's message and its anchor."""


class DecodeError(ValueError):
    """A capture or a formula that cannot be decoded.

    ``str(e)`` is the message ``hwpc`` prints after ``hwpc decode: `` (the
    file's path first, then e.g. ``truncated at byte offset 192: ...``).
    ``offset`` is the byte offset into the input the error names (``None``
    when it names none); ``column`` is the 1-based column of a formula
    error (``None`` otherwise); ``path`` the capture's path when the input
    was a file (set by hwpc.dask for every capture it reads).
    """

    def __init__(self, message, offset=None, column=None, path=None):
        super().__init__(message)
        self.offset = offset
        self.column = column
        self.path = path

    def __reduce__(self):
        # Errors cross process boundaries (Dask workers): keep the anchors.
        return (type(self), (str(self), self.offset, self.column, self.path))
