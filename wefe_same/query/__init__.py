"""The first layer of the data flow: word sets, queries, templates and query files (WEFE's §3.1).

>>> from wefe_same.query import WordSet, Query, load_queries
"""

from wefe_same.query.files import QueriesLike, bundled_query_sets, load_queries, load_query_file
from wefe_same.query.sets import AtLeast, Query, QuerySet, Template, WordSet

__all__ = ["AtLeast", "QueriesLike", "Query", "QuerySet", "Template", "WordSet", "bundled_query_sets",
           "load_queries", "load_query_file"]
