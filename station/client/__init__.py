"""Layer 5, the client library: a consumer of the station's upstream contract
(docs/upstream.md, docs/client.md). Feed it each payload and its topic, get findings and each
table's state. No broker code inside."""

from station.client.findings import (
    Applied,
    BadSignature,
    Duplicate,
    Finding,
    Gap,
    RewrittenHistory,
    SchemaFailure,
    UnknownTable,
    Unreadable,
)
from station.client.keys import load_keys
from station.client.state import TableState
from station.client.stream import Floor, TableStream, schema_validator

__all__ = ["Applied", "BadSignature", "Duplicate", "Finding", "Floor", "Gap",
           "RewrittenHistory", "SchemaFailure", "TableState", "TableStream", "UnknownTable",
           "Unreadable", "load_keys", "schema_validator"]
