"""The part of psycopg2 that test/sort/randdiff.py uses, over libpq through
ctypes (standard library only): for a machine where psycopg2 cannot be
installed but PostgreSQL's client library is there (the GPU machine, whose
PostgreSQL comes from the bundle of test/gpu/README.md).

    import pqshim as psycopg2
    conn = psycopg2.connect('')      # libpq's conninfo; '' reads PGHOST, PGPORT, ...
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute('SELECT %s::text[]', (['a', None],))
    cur.fetchall()                   # [('{a,NULL}',)]

Every value comes back as the server's text (a str, None for NULL), as
randdiff.py has psycopg2 return it (its RAW typecaster): json included.
execute() without parameters sends the query as it is (several statements
may be separated by ';'), with parameters it substitutes %s and %(name)s by
literals quoted as psycopg2 quotes them (PQescapeLiteral; a list becomes
ARRAY[...], an empty one '{}'), and %% by %.  Errors raise Error (or its
subclass OperationalError, for failed connections and lost ones) with
.pgcode (the SQLSTATE, None where the client made the error: a lost
connection), .pgerror and .diag.message_primary etc.; after a lost
connection conn.closed is 2, as in psycopg2.  Notices are kept in
conn.notices (the last 50), not printed.  Without autocommit the first
statement opens a transaction (commit(), rollback()), as in psycopg2.

libpq is looked for as $GS_LIBPQ (a file), ctypes.util.find_library('pq'),
libpq.so.5 on the loader's path (LD_LIBRARY_PATH, ldconfig), in
`pg_config --libdir`, in BIN/../lib for each PATH directory BIN holding
pg_config, psql or postgres, and in /opt/pgdeps*/lib (the bundle's
libraries); importing the module raises ImportError if none loads.

    python3 test/sort/pqshim.py       prints the libpq it loads (exit 1: none)
"""
import ctypes
import ctypes.util
import codecs
import decimal
import glob
import math
import os
import re
import subprocess
import sys
import weakref

apilevel = '2.0'
threadsafety = 1
paramstyle = 'pyformat'


# ---------------------------------------------------------------------------
# libpq

def _candidates():
    env = os.environ.get('GS_LIBPQ')
    if env:
        yield env
    found = ctypes.util.find_library('pq')
    if found:
        yield found
    yield 'libpq.so.5'
    try:
        libdir = subprocess.run(['pg_config', '--libdir'], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, universal_newlines=True,
                                timeout=30).stdout.strip()
        if libdir:
            yield os.path.join(libdir, 'libpq.so.5')
            yield os.path.join(libdir, 'libpq.so')
    except (OSError, subprocess.SubprocessError):
        pass
    for d in os.environ.get('PATH', '').split(os.pathsep):
        if d and any(os.access(os.path.join(d, b), os.X_OK) for b in ('pg_config', 'psql', 'postgres')):
            lib = os.path.join(os.path.dirname(os.path.abspath(d)), 'lib')
            yield os.path.join(lib, 'libpq.so.5')
            yield os.path.join(lib, 'libpq.so')
    for lib in sorted(glob.glob('/opt/pgdeps*/lib')):
        yield os.path.join(lib, 'libpq.so.5')


def _load():
    tried = []
    for c in _candidates():
        if c in tried:
            continue
        tried.append(c)
        try:
            lib = ctypes.CDLL(c)
            lib.PQlibVersion        # pylint: disable=pointless-statement
            return lib, c
        except (OSError, AttributeError):
            pass
    raise ImportError('pqshim: libpq (libpq.so.5) not found; tried %s; set GS_LIBPQ to the file, '
                      'or put its directory in LD_LIBRARY_PATH' % ', '.join(tried))


try:
    _pq, libpq_path = _load()
except ImportError as _e:
    if __name__ == '__main__':
        sys.exit(str(_e))
    raise

_P = ctypes.c_void_p
_NOTICE_PROCESSOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)
for _name, _res, _args in [
        ('PQconnectdb', _P, [ctypes.c_char_p]),
        ('PQstatus', ctypes.c_int, [_P]),
        ('PQerrorMessage', ctypes.c_char_p, [_P]),
        ('PQfinish', None, [_P]),
        ('PQexec', _P, [_P, ctypes.c_char_p]),
        ('PQresultStatus', ctypes.c_int, [_P]),
        ('PQresultErrorMessage', ctypes.c_char_p, [_P]),
        ('PQresultErrorField', ctypes.c_char_p, [_P, ctypes.c_int]),
        ('PQntuples', ctypes.c_int, [_P]),
        ('PQnfields', ctypes.c_int, [_P]),
        ('PQfname', ctypes.c_char_p, [_P, ctypes.c_int]),
        ('PQftype', ctypes.c_uint, [_P, ctypes.c_int]),
        ('PQgetvalue', ctypes.c_char_p, [_P, ctypes.c_int, ctypes.c_int]),
        ('PQgetisnull', ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int]),
        ('PQcmdStatus', ctypes.c_char_p, [_P]),
        ('PQcmdTuples', ctypes.c_char_p, [_P]),
        ('PQclear', None, [_P]),
        ('PQparameterStatus', ctypes.c_char_p, [_P, ctypes.c_char_p]),
        ('PQtransactionStatus', ctypes.c_int, [_P]),
        ('PQescapeLiteral', _P, [_P, ctypes.c_char_p, ctypes.c_size_t]),
        ('PQescapeByteaConn', _P, [_P, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
        ('PQfreemem', None, [_P]),
        ('PQsetNoticeProcessor', _P, [_P, _NOTICE_PROCESSOR, _P]),
        ('PQlibVersion', ctypes.c_int, []),
        ('PQserverVersion', ctypes.c_int, [_P])]:
    _f = getattr(_pq, _name)
    _f.restype = _res
    _f.argtypes = _args

# PQgetvalue once a cell: without argtypes (the result passed as a c_void_p,
# row and column as Python ints), ctypes calls it faster
_getvalue = _pq['PQgetvalue']
_getvalue.restype = ctypes.c_char_p

CONNECTION_OK = 0
PGRES_EMPTY_QUERY, PGRES_COMMAND_OK, PGRES_TUPLES_OK = 0, 1, 2
PGRES_COPY_OUT, PGRES_COPY_IN = 3, 4
PGRES_BAD_RESPONSE, PGRES_NONFATAL_ERROR, PGRES_FATAL_ERROR = 5, 6, 7
PQTRANS_IDLE = 0

# PG_DIAG_* field codes (postgres_ext.h), psycopg2's Diagnostics names
_DIAG_FIELDS = {
    'severity': ord('S'), 'severity_nonlocalized': ord('V'), 'sqlstate': ord('C'),
    'message_primary': ord('M'), 'message_detail': ord('D'), 'message_hint': ord('H'),
    'statement_position': ord('P'), 'internal_position': ord('p'),
    'internal_query': ord('q'), 'context': ord('W'), 'schema_name': ord('s'),
    'table_name': ord('t'), 'column_name': ord('c'), 'datatype_name': ord('d'),
    'constraint_name': ord('n'), 'source_file': ord('F'), 'source_line': ord('L'),
    'source_function': ord('R')}

# PostgreSQL's encoding names that Python spells otherwise
_ENCODINGS = {'UTF8': 'utf-8', 'SQL_ASCII': 'ascii', 'UNICODE': 'utf-8',
              'LATIN1': 'iso8859_1', 'LATIN2': 'iso8859_2', 'LATIN3': 'iso8859_3',
              'LATIN4': 'iso8859_4', 'LATIN5': 'iso8859_9', 'LATIN6': 'iso8859_10',
              'LATIN7': 'iso8859_13', 'LATIN8': 'iso8859_14', 'LATIN9': 'iso8859_15',
              'LATIN10': 'iso8859_16', 'WIN866': 'cp866', 'WIN874': 'cp874',
              'KOI8R': 'koi8_r', 'KOI8U': 'koi8_u', 'EUC_JP': 'euc_jp', 'EUC_KR': 'euc_kr',
              'EUC_CN': 'gb2312', 'SJIS': 'shift_jis', 'BIG5': 'big5', 'GBK': 'gbk',
              'GB18030': 'gb18030', 'UHC': 'cp949', 'JOHAB': 'johab'}


def _pyencoding(pgname):
    if pgname in _ENCODINGS:
        return _ENCODINGS[pgname]
    if pgname.startswith('WIN'):        # WIN1250 .. WIN1258
        return 'cp' + pgname[3:]
    if pgname.startswith('ISO_8859_'):
        return 'iso8859_' + pgname[9:]
    try:
        return codecs.lookup(pgname).name
    except LookupError:
        return 'utf-8'


# ---------------------------------------------------------------------------
# exceptions, as psycopg2's (PEP 249) hierarchy

class Warning(Exception):       # pylint: disable=redefined-builtin
    pass


class Error(Exception):
    def __init__(self, msg='', pgcode=None, pgerror=None, diag=None, cursor=None):
        super().__init__(msg)
        self.pgcode = pgcode
        self.pgerror = pgerror
        self.diag = diag if diag is not None else Diagnostics(None)
        self.cursor = cursor


class InterfaceError(Error):
    pass


class DatabaseError(Error):
    pass


class DataError(DatabaseError):
    pass


class OperationalError(DatabaseError):
    pass


class IntegrityError(DatabaseError):
    pass


class InternalError(DatabaseError):
    pass


class ProgrammingError(DatabaseError):
    pass


class NotSupportedError(DatabaseError):
    pass


class QueryCanceledError(OperationalError):
    pass


class TransactionRollbackError(OperationalError):
    pass


def _error_class(sqlstate):
    """psycopg2's choice of class by SQLSTATE (psycopg/pqpath.c)"""
    if sqlstate is None:
        return OperationalError
    if sqlstate == '57014':
        return QueryCanceledError
    if sqlstate[:2] == '40':
        return TransactionRollbackError
    return {'02': DataError, '21': ProgrammingError, '22': DataError, '23': IntegrityError,
            '24': InternalError, '25': InternalError, '26': InternalError, '27': InternalError,
            '28': OperationalError, '2B': InternalError, '2D': InternalError, '2F': InternalError,
            '34': ProgrammingError, '38': InternalError, '39': InternalError, '3B': InternalError,
            '3D': ProgrammingError, '3F': ProgrammingError, '42': ProgrammingError,
            '44': ProgrammingError, '53': OperationalError, '54': OperationalError,
            '55': OperationalError, '57': OperationalError, '58': OperationalError,
            'F0': InternalError, 'HV': OperationalError, 'P0': InternalError,
            'XX': InternalError, '0A': NotSupportedError}.get(sqlstate[:2], DatabaseError)


class Diagnostics:
    """the fields of an error result (None where absent)"""

    def __init__(self, fields):
        self._fields = fields or {}

    def __getattr__(self, name):
        if name in _DIAG_FIELDS:
            return self._fields.get(name)
        raise AttributeError(name)


# ---------------------------------------------------------------------------
# parameters: quoted client-side as psycopg2 quotes them

def _quote(conn, v):
    if v is None:
        return 'NULL'
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "'NaN'::float"
        if math.isinf(v):
            return "'Infinity'::float" if v > 0 else "'-Infinity'::float"
        return repr(v)
    if isinstance(v, decimal.Decimal):
        return "'NaN'::numeric" if v.is_nan() else str(v)
    if isinstance(v, str):
        return conn._escape_literal(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return conn._escape_bytea(bytes(v))
    if isinstance(v, list):
        if not v:
            return "'{}'"
        return 'ARRAY[%s]' % ','.join(_quote(conn, x) for x in v)
    if isinstance(v, tuple):
        return '(%s)' % ', '.join(_quote(conn, x) for x in v)
    raise ProgrammingError("can't adapt type '%s'" % type(v).__name__)


_PLACEHOLDER = re.compile(r'%(?:\((?P<name>[^)]*)\))?(?P<conv>.)?', re.S)


def _format(conn, query, params):
    """query with %s / %(name)s replaced by the quoted params, %% by %"""
    seq = not isinstance(params, dict)
    if seq:
        params = list(params)
    quoted = {}
    pos = [0]

    def sub(m):
        conv, name = m.group('conv'), m.group('name')
        if conv == '%' and name is None:
            return '%'
        if conv != 's':
            raise ValueError('unsupported format character %r in the query' % (conv or ''))
        if name is not None:
            if seq:
                raise TypeError('query with %(name)s needs a dict of parameters')
            if name not in quoted:
                quoted[name] = _quote(conn, params[name])
            return quoted[name]
        if not seq:
            raise TypeError('query with %s needs a sequence of parameters')
        if pos[0] >= len(params):
            raise IndexError('tuple index out of range')
        pos[0] += 1
        return _quote(conn, params[pos[0] - 1])

    out = _PLACEHOLDER.sub(sub, query)
    if seq and pos[0] < len(params):
        raise TypeError('not all arguments converted during string formatting')
    return out


# ---------------------------------------------------------------------------
# connection and cursor

def connect(dsn='', **kwargs):
    """a Connection per libpq's conninfo dsn (and key=value keywords)"""
    parts = [dsn] if dsn else []
    for k, v in kwargs.items():
        if v is not None:
            parts.append("%s='%s'" % (k, str(v).replace('\\', '\\\\').replace("'", "\\'")))
    return Connection(' '.join(parts))


class Connection:
    Error = Error
    OperationalError = OperationalError
    ProgrammingError = ProgrammingError

    def __init__(self, dsn):
        self.dsn = dsn
        self.notices = []
        self._closed = 0
        self._autocommit = False
        self._pgconn = _pq.PQconnectdb(dsn.encode())
        if not self._pgconn:
            raise OperationalError('pqshim: out of memory connecting')
        if _pq.PQstatus(self._pgconn) != CONNECTION_OK:
            msg = (_pq.PQerrorMessage(self._pgconn) or b'').decode('utf-8', 'replace')
            _pq.PQfinish(self._pgconn)
            self._pgconn = None
            self._closed = 1
            raise OperationalError(msg)

        # notices are kept, not printed on stderr (libpq's default); the
        # callback holds no reference to self (no cycle: close on last use)
        notices, ref = self.notices, weakref.ref(self)

        def notice(_arg, msg):
            conn = ref()
            notices.append(msg.decode(conn._encoding if conn else 'utf-8', 'replace'))
            del notices[:-50]
        self._notice_cb = _NOTICE_PROCESSOR(notice)
        _pq.PQsetNoticeProcessor(self._pgconn, self._notice_cb, None)
        # psycopg2 asks for ISO dates where the server's DateStyle is otherwise
        ds = _pq.PQparameterStatus(self._pgconn, b'DateStyle')
        if ds is not None and not ds.startswith(b'ISO'):
            self._exec_raw("SET DATESTYLE TO 'ISO'")

    @property
    def _encoding(self):
        e = self._pgconn and _pq.PQparameterStatus(self._pgconn, b'client_encoding')
        return _pyencoding(e.decode()) if e else 'utf-8'

    @property
    def closed(self):
        """0 open, 1 closed by close(), 2 broken (as psycopg2)"""
        if self._closed:
            return self._closed
        return 0 if _pq.PQstatus(self._pgconn) == CONNECTION_OK else 2

    @property
    def autocommit(self):
        return self._autocommit

    @autocommit.setter
    def autocommit(self, value):
        self._check()
        if _pq.PQtransactionStatus(self._pgconn) != PQTRANS_IDLE:
            raise ProgrammingError('set_session cannot be used inside a transaction')
        self._autocommit = bool(value)

    @property
    def server_version(self):
        self._check()
        return _pq.PQserverVersion(self._pgconn)

    def _check(self):
        if self.closed:
            raise InterfaceError('connection already closed')

    def cursor(self):
        self._check()
        return Cursor(self)

    def close(self):
        if self._pgconn:
            _pq.PQfinish(self._pgconn)
            self._pgconn = None
        self._closed = 1

    def __del__(self):
        try:
            self.close()
        except Exception:       # pylint: disable=broad-except
            pass

    def commit(self):
        self._check()
        if _pq.PQtransactionStatus(self._pgconn) != PQTRANS_IDLE:
            self._exec_raw('COMMIT')

    def rollback(self):
        self._check()
        if _pq.PQtransactionStatus(self._pgconn) != PQTRANS_IDLE:
            self._exec_raw('ROLLBACK')

    def _exec_raw(self, sql):
        res = self._exec(sql)
        _pq.PQclear(res)

    def _exec(self, sql, cursor=None):
        """PQexec; a result of tuples or of a command, else raises"""
        self._check()
        res = _pq.PQexec(self._pgconn, sql.encode(self._encoding))
        st = _pq.PQresultStatus(res) if res else PGRES_FATAL_ERROR
        if st in (PGRES_COMMAND_OK, PGRES_TUPLES_OK):
            return res
        if st == PGRES_EMPTY_QUERY:
            _pq.PQclear(res)
            raise ProgrammingError("can't execute an empty query")
        try:
            enc = self._encoding
            if res:
                msg = (_pq.PQresultErrorMessage(res) or b'').decode(enc, 'replace')
                fields = {}
                for name, code in _DIAG_FIELDS.items():
                    v = _pq.PQresultErrorField(res, code)
                    if v is not None:
                        fields[name] = v.decode(enc, 'replace')
            else:
                msg, fields = '', {}
            if not msg:
                msg = (_pq.PQerrorMessage(self._pgconn) or b'').decode(enc, 'replace')
            if st in (PGRES_COPY_OUT, PGRES_COPY_IN):
                raise NotSupportedError('pqshim: COPY is not supported', cursor=cursor)
            sqlstate = fields.get('sqlstate')
            # psycopg2's message: without the "ERROR:  " prefix
            text = msg
            for pre in ('ERROR:  ', 'FATAL:  ', 'PANIC:  '):
                if text.startswith(pre):
                    text = text[len(pre):]
                    break
            raise _error_class(sqlstate)(text, pgcode=sqlstate, pgerror=msg or None,
                                         diag=Diagnostics(fields), cursor=cursor)
        finally:
            if res:
                _pq.PQclear(res)

    def _escape_literal(self, s):
        b = s.encode(self._encoding)
        p = _pq.PQescapeLiteral(self._pgconn, b, len(b))
        if not p:
            raise DataError((_pq.PQerrorMessage(self._pgconn) or b'').decode('utf-8', 'replace'))
        try:
            return ctypes.string_at(p).decode(self._encoding)
        finally:
            _pq.PQfreemem(p)

    def _escape_bytea(self, b):
        n = ctypes.c_size_t()
        p = _pq.PQescapeByteaConn(self._pgconn, b, len(b), ctypes.byref(n))
        if not p:
            raise DataError((_pq.PQerrorMessage(self._pgconn) or b'').decode('utf-8', 'replace'))
        try:
            return "'%s'::bytea" % ctypes.string_at(p).decode('ascii')
        finally:
            _pq.PQfreemem(p)


class Cursor:
    arraysize = 1

    def __init__(self, conn):
        self.connection = conn
        self.closed = False
        self.description = None
        self.rowcount = -1
        self.rownumber = 0
        self.statusmessage = None
        self.query = None
        self._rows = None

    def close(self):
        self.closed = True
        self._rows = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        while True:
            r = self.fetchone()
            if r is None:
                return
            yield r

    def mogrify(self, query, params=None):
        return (query if params is None else _format(self.connection, query, params)).encode(
            self.connection._encoding)

    def execute(self, query, params=None):
        if self.closed:
            raise InterfaceError('cursor already closed')
        conn = self.connection
        if conn.closed:
            raise InterfaceError('cursor already closed')
        if params is not None:
            query = _format(conn, query, params)
        self.query = query
        self.description, self._rows, self.rowcount, self.rownumber = None, None, -1, 0
        if not conn._autocommit and _pq.PQtransactionStatus(conn._pgconn) == PQTRANS_IDLE:
            conn._exec_raw('BEGIN')
        res = conn._exec(query, cursor=self)
        try:
            self.statusmessage = (_pq.PQcmdStatus(res) or b'').decode('ascii', 'replace') or None
            if _pq.PQresultStatus(res) == PGRES_TUPLES_OK:
                enc = conn._encoding
                nf, nt = _pq.PQnfields(res), _pq.PQntuples(res)
                self.description = [(_pq.PQfname(res, c).decode(enc, 'replace'), _pq.PQftype(res, c),
                                     None, None, None, None, None) for c in range(nf)]
                get, isnull, pres = _getvalue, _pq.PQgetisnull, ctypes.c_void_p(res)
                cols = range(nf)
                rows = []
                for r in range(nt):
                    row = [get(pres, r, c) for c in cols]
                    # a NULL reads as '': only then is PQgetisnull asked
                    rows.append(tuple(None if not v and isnull(res, r, c) else v.decode(enc)
                                      for c, v in enumerate(row)))
                self._rows = rows
                self.rowcount = nt
            else:
                n = _pq.PQcmdTuples(res)
                self.rowcount = int(n) if n else -1
        finally:
            _pq.PQclear(res)

    def _need_rows(self):
        if self._rows is None:
            raise ProgrammingError('no results to fetch')

    def fetchone(self):
        self._need_rows()
        if self.rownumber >= len(self._rows):
            return None
        self.rownumber += 1
        return self._rows[self.rownumber - 1]

    def fetchmany(self, size=None):
        self._need_rows()
        size = self.arraysize if size is None else size
        out = self._rows[self.rownumber:self.rownumber + size]
        self.rownumber += len(out)
        return out

    def fetchall(self):
        self._need_rows()
        out = self._rows[self.rownumber:]
        self.rownumber = len(self._rows)
        return out


def lib_version():
    """libpq's version, 150004 for 15.4"""
    return _pq.PQlibVersion()


if __name__ == '__main__':
    v = lib_version()
    print('pqshim: libpq %d.%d at %s' % (v // 10000, v % 10000, libpq_path))
