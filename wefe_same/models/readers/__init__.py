"""Embedding files as they come, one module per format: text (GloVe, word2vec, fastText
``.vec``), word2vec binary, either one gzip-compressed, fastText ``.bin``, ``.npy`` +
vocabulary, gensim pickles; :mod:`.files` opens and sniffs them for every reader.

Text and word2vec binary files are *streamed* (:mod:`.streamed`): one pass over the
(decompressed) bytes keeps only the requested rows and stops when every one is found.

Resolving a spec opens no file: paths are checked with ``os.stat``
(:func:`~.files.check_model_file`) and formats guessed from names;
:class:`~.vectors_file.VectorsFileSource` sniffs the content (text or binary, header or
not, fastText) when the vectors are first asked for.

Every problem with a file is a :class:`~wefe_same.errors.ModelError` with one line naming
the file (and the line or record): no other exception escapes a reader. The message
templates are module constants that the tests match.
"""

from wefe_same.models.readers.decoding import DECODED, DECODED_SUMMARY, NOT_UTF8, UNICODE_ERRORS
from wefe_same.models.readers.fasttext_bin import (
    FASTTEXT_FAILED,
    FASTTEXT_MATRIX,
    FASTTEXT_QUANTIZED,
    FASTTEXT_TRUNCATED,
    FastTextBinSource,
    check_fasttext_bin,
)
from wefe_same.models.readers.files import (
    BAD_DIMENSION,
    CANNOT_READ,
    IS_A_DIRECTORY,
    LINE_TOO_LONG,
    MAX_DIM,
    MAX_LINE_BYTES,
    MAX_WORD_BYTES,
    NO_SUCH_FILE,
    NO_VECTORS,
    NOT_A_FILE,
    check_model_file,
    file_description,
    file_identity,
    is_gzip,
    open_stream,
    sniff,
    sniff_format,
    sniff_text_header,
    strip_gz,
)
from wefe_same.models.readers.gensim_pickle import lazy_gensim_pickle, load_gensim_pickle
from wefe_same.models.readers.npy import NPY_NOT_NUMBERS, NPY_OBJECTS, lazy_npy, load_npy
from wefe_same.models.readers.streamed import StreamedFileSource
from wefe_same.models.readers.text import BAD_VECTOR, WRONG_LENGTH, TextVectorsSource
from wefe_same.models.readers.vectors_file import Label, VectorsFileSource, open_vectors_file
from wefe_same.models.readers.word2vec_binary import (
    BAD_HEADER,
    NO_SPACE,
    TRUNCATED,
    Word2VecBinarySource,
    load_word2vec_binary,
)

__all__ = [
    "BAD_DIMENSION", "BAD_HEADER", "BAD_VECTOR", "CANNOT_READ", "DECODED", "DECODED_SUMMARY", "FASTTEXT_FAILED",
    "FASTTEXT_MATRIX", "FASTTEXT_QUANTIZED", "FASTTEXT_TRUNCATED", "IS_A_DIRECTORY", "LINE_TOO_LONG", "MAX_DIM",
    "MAX_LINE_BYTES", "MAX_WORD_BYTES", "NOT_A_FILE", "NOT_UTF8", "NO_SPACE", "NO_SUCH_FILE", "NO_VECTORS",
    "NPY_NOT_NUMBERS", "NPY_OBJECTS", "TRUNCATED", "UNICODE_ERRORS", "WRONG_LENGTH", "FastTextBinSource", "Label",
    "StreamedFileSource", "TextVectorsSource", "VectorsFileSource", "Word2VecBinarySource", "check_fasttext_bin",
    "check_model_file", "file_description", "file_identity", "is_gzip", "lazy_gensim_pickle", "lazy_npy",
    "load_gensim_pickle", "load_npy", "load_word2vec_binary", "open_stream", "open_vectors_file", "sniff",
    "sniff_format", "sniff_text_header", "strip_gz",
]
