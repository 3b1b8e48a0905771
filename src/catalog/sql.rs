//! The catalog's one way to its database: SQLite on disk, or PostgreSQL when the library lives
//! in a database server. Each statement is written once, in the SQL both understand, with `?1`
//! placeholders (PostgreSQL is given `$1`); values go in as [`Value`]s and columns come out
//! through [`Column`], so that no module of the catalog knows which database it talks to.
//!
//! A transaction on SQLite takes the write lock when it begins (`BEGIN IMMEDIATE`); on
//! PostgreSQL it takes an advisory lock every catalog writer takes, so that in both a
//! transaction that reads and then writes sees no other writer in between. A transaction
//! inside another is a savepoint.

use std::cell::{Cell, Ref, RefCell};
use std::collections::HashMap;

use bytes::BytesMut;
use tokio_postgres::types::{to_sql_checked, IsNull, ToSql, Type};
use tokio_postgres::{Client, Statement};

use super::CatalogError;
use crate::database::{self, Runtime, Server};

/// The advisory lock every catalog transaction on PostgreSQL holds (an arbitrary key, the same
/// in every process).
const WRITE_LOCK: i64 = 0x6c65_6374_6572_6e02;

/// How many prepared statements a connection keeps.
const PREPARED: usize = 256;

/// A value given to a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bool(bool),
    Bytes(Vec<u8>),
}

/// The values of a statement, each converted to a [`Value`] (borrowed, as SQLite's `params!`).
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$($crate::catalog::sql::ToValue::to_value(&$value)),*] as &[$crate::catalog::sql::Value]
    };
}
pub(crate) use args;

/// What can be given to a statement.
pub trait ToValue {
    fn to_value(&self) -> Value;
}

macro_rules! int_values {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Value {
                Value::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
int_values!(i64, i32, u16, u32, u64, usize);

impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}

impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_string())
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Value {
        Value::Bytes(self.to_vec())
    }
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Value::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Value::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Value::Bool(v) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(*v))),
            Value::Bytes(v) => ToSqlOutput::Borrowed(ValueRef::Blob(v)),
        })
    }
}

type Failure = Box<dyn std::error::Error + Sync + Send>;

impl ToSql for Value {
    /// Written as the type the server expects of the parameter: an integer as the integer type
    /// of its column, a flag as a boolean.
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Failure> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) => match *ty {
                Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
                Type::FLOAT8 => (*v as f64).to_sql(ty, out),
                Type::BOOL => (*v != 0).to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(v) => v.to_sql(ty, out),
            Value::Bool(v) => match *ty {
                Type::INT2 | Type::INT4 | Type::INT8 => Value::Int(i64::from(*v)).to_sql(ty, out),
                _ => v.to_sql(ty, out),
            },
            Value::Bytes(v) => v.as_slice().to_sql(ty, out),
        }
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// A row of a query's result.
pub enum Row<'a> {
    Lite(&'a rusqlite::Row<'a>),
    Pg(&'a tokio_postgres::Row),
}

impl Row<'_> {
    /// Column `index`, as `T`.
    pub fn get<T: Column>(&self, index: usize) -> Result<T, CatalogError> {
        match self {
            Row::Lite(row) => Ok(T::lite(row, index)?),
            Row::Pg(row) => T::pg(row, index).map_err(|reason| CatalogError::Column { index, reason }),
        }
    }
}

/// A type a column is read as, from either database.
pub trait Column: Sized {
    fn lite(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Self>;
    fn pg(row: &tokio_postgres::Row, index: usize) -> Result<Self, String>;
}

/// An integer column of any width, or a flag, as `i64`.
fn pg_integer(row: &tokio_postgres::Row, index: usize) -> Result<Option<i64>, String> {
    let Some(column) = row.columns().get(index) else {
        return Err(format!("the result has no column {index}"));
    };
    let read = match *column.type_() {
        Type::INT8 => row.try_get::<_, Option<i64>>(index),
        Type::INT4 => row.try_get::<_, Option<i32>>(index).map(|v| v.map(i64::from)),
        Type::INT2 => row.try_get::<_, Option<i16>>(index).map(|v| v.map(i64::from)),
        Type::BOOL => row.try_get::<_, Option<bool>>(index).map(|v| v.map(i64::from)),
        ref other => return Err(format!("{} holds {other}, not an integer", column.name())),
    };
    read.map_err(|e| e.to_string())
}

macro_rules! integer_columns {
    ($($t:ty),*) => {$(
        impl Column for $t {
            fn lite(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Self> {
                row.get(index)
            }

            fn pg(row: &tokio_postgres::Row, index: usize) -> Result<Self, String> {
                let value = pg_integer(row, index)?.ok_or("an integer column is null")?;
                <$t>::try_from(value).map_err(|e| e.to_string())
            }
        }

        impl Column for Option<$t> {
            fn lite(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Self> {
                row.get(index)
            }

            fn pg(row: &tokio_postgres::Row, index: usize) -> Result<Self, String> {
                pg_integer(row, index)?.map(|v| <$t>::try_from(v).map_err(|e| e.to_string())).transpose()
            }
        }
    )*};
}
integer_columns!(i64, u64, u32, u16, usize);

impl Column for bool {
    fn lite(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Self> {
        row.get(index)
    }

    fn pg(row: &tokio_postgres::Row, index: usize) -> Result<Self, String> {
        Ok(pg_integer(row, index)?.ok_or("a flag is null")? != 0)
    }
}

macro_rules! plain_columns {
    ($($t:ty),*) => {$(
        impl Column for $t {
            fn lite(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Self> {
                row.get(index)
            }

            fn pg(row: &tokio_postgres::Row, index: usize) -> Result<Self, String> {
                row.try_get(index).map_err(|e| e.to_string())
            }
        }
    )*};
}
plain_columns!(String, Option<String>, f64, Vec<u8>);

/// Any column, as the value it holds (a library copied to another database reads its rows so).
impl Column for Value {
    fn lite(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<Self> {
        use rusqlite::types::ValueRef;
        Ok(match row.get_ref(index)? {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(v) => Value::Int(v),
            ValueRef::Real(v) => Value::Real(v),
            ValueRef::Text(v) => Value::Text(String::from_utf8_lossy(v).into_owned()),
            ValueRef::Blob(v) => Value::Bytes(v.to_vec()),
        })
    }

    fn pg(row: &tokio_postgres::Row, index: usize) -> Result<Self, String> {
        let Some(column) = row.columns().get(index) else {
            return Err(format!("the result has no column {index}"));
        };
        let value = match *column.type_() {
            Type::INT2 | Type::INT4 | Type::INT8 => pg_integer(row, index)?.map(Value::Int),
            Type::BOOL => row
                .try_get::<_, Option<bool>>(index)
                .map_err(|e| e.to_string())?
                .map(Value::Bool),
            Type::FLOAT8 => row
                .try_get::<_, Option<f64>>(index)
                .map_err(|e| e.to_string())?
                .map(Value::Real),
            Type::BYTEA => row
                .try_get::<_, Option<Vec<u8>>>(index)
                .map_err(|e| e.to_string())?
                .map(Value::Bytes),
            _ => row
                .try_get::<_, Option<String>>(index)
                .map_err(|e| e.to_string())?
                .map(Value::Text),
        };
        Ok(value.unwrap_or(Value::Null))
    }
}

/// A catalog's connection.
pub struct Db {
    backend: Backend,
    /// Transactions open, the outermost first.
    depth: Cell<u32>,
}

enum Backend {
    Lite(rusqlite::Connection),
    Pg(Box<Pg>),
}

/// A connection to PostgreSQL, with the statements it has prepared.
pub struct Pg {
    client: RefCell<Client>,
    server: Server,
    pub runtime: Runtime,
    prepared: RefCell<HashMap<String, Statement>>,
}

impl Pg {
    /// A connection to `server`, driven by `runtime`.
    pub fn connect(server: Server, runtime: Runtime) -> Result<Pg, CatalogError> {
        let client = database::open(&server, &runtime)?;
        Ok(Pg {
            client: RefCell::new(client),
            server,
            runtime,
            prepared: RefCell::new(HashMap::new()),
        })
    }

    /// The connection.
    pub fn client(&self) -> Ref<'_, Client> {
        self.client.borrow()
    }

    /// Opens the connection again if it was closed (the server restarted, or ended it), with
    /// none of its prepared statements. Only between transactions: one that was open is lost,
    /// and says so.
    fn revive(&self) -> Result<(), CatalogError> {
        if self.client.borrow().is_closed() {
            let client = database::open(&self.server, &self.runtime)?;
            *self.client.borrow_mut() = client;
            self.prepared.borrow_mut().clear();
        }
        Ok(())
    }

    /// Wraps a server's error with where it came from.
    pub fn failed(&self, source: tokio_postgres::Error) -> CatalogError {
        CatalogError::database(self.server.name.clone(), source)
    }

    /// `sql` prepared, once per connection (up to [`PREPARED`] statements: a scope's is built
    /// for its folders and filters, so a long-running server would otherwise keep every one).
    fn prepare(&self, sql: &str) -> Result<Statement, CatalogError> {
        if let Some(statement) = self.prepared.borrow().get(sql) {
            return Ok(statement.clone());
        }
        if self.prepared.borrow().len() >= PREPARED {
            // Dropped, a statement is closed on the server.
            self.prepared.borrow_mut().clear();
        }
        let translated = dollar_placeholders(sql);
        let statement = self
            .runtime
            .run(self.client().prepare(&translated))
            .map_err(|e| self.failed(e))?;
        self.prepared.borrow_mut().insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    fn params(args: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
        args.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
    }

    fn batch(&self, sql: &str) -> Result<(), CatalogError> {
        self.runtime
            .run(self.client().batch_execute(sql))
            .map_err(|e| self.failed(e))
    }
}

/// A transaction under way: when dropped, its depth is given back and, unless it is to be
/// committed, it is rolled back.
struct Open<'a> {
    db: &'a Db,
    depth: u32,
    rollback: Option<String>,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.db.depth.set(self.depth);
        if let Some(rollback) = self.rollback.take() {
            // The transaction's own error (or panic) is the one to report.
            let _ = self.db.finish(&rollback);
        }
    }
}

/// `sql` with each `?N` written `$N`, as PostgreSQL numbers its parameters.
fn dollar_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

impl Db {
    pub fn sqlite(conn: rusqlite::Connection) -> Db {
        Db {
            backend: Backend::Lite(conn),
            depth: Cell::new(0),
        }
    }

    pub fn postgres(pg: Pg) -> Db {
        Db {
            backend: Backend::Pg(Box::new(pg)),
            depth: Cell::new(0),
        }
    }

    /// A stamp that differs whenever what this connection reads may have changed since it was
    /// taken: SQLite's data version (commits of other connections) with this connection's own
    /// changes. `None` inside a transaction (it may yet be rolled back) and for PostgreSQL, whose
    /// other clients' commits a connection is not told of.
    pub fn change_stamp(&self) -> Option<(i64, u64)> {
        match &self.backend {
            Backend::Lite(conn) if self.depth.get() == 0 => {
                let version = conn.query_row("PRAGMA data_version", [], |r| r.get(0)).ok()?;
                Some((version, conn.total_changes()))
            }
            _ => None,
        }
    }

    /// Whether this is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self.backend, Backend::Pg(_))
    }

    /// Runs a statement; returns the rows it changed.
    pub fn execute(&self, sql: &str, args: &[Value]) -> Result<usize, CatalogError> {
        match &self.backend {
            Backend::Lite(conn) => Ok(conn
                .prepare_cached(sql)?
                .execute(rusqlite::params_from_iter(args.iter()))?),
            Backend::Pg(pg) => {
                self.revive(pg)?;
                let statement = pg.prepare(sql)?;
                let changed = pg
                    .runtime
                    .run(pg.client().execute(&statement, &Pg::params(args)))
                    .map_err(|e| pg.failed(e))?;
                Ok(usize::try_from(changed).unwrap_or(usize::MAX))
            }
        }
    }

    /// Each row of a query, read by `read`.
    pub fn query<T>(
        &self,
        sql: &str,
        args: &[Value],
        mut read: impl FnMut(&Row<'_>) -> Result<T, CatalogError>,
    ) -> Result<Vec<T>, CatalogError> {
        match &self.backend {
            Backend::Lite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let mut rows = statement.query(rusqlite::params_from_iter(args.iter()))?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    out.push(read(&Row::Lite(row))?);
                }
                Ok(out)
            }
            Backend::Pg(pg) => {
                self.revive(pg)?;
                let statement = pg.prepare(sql)?;
                let rows = pg
                    .runtime
                    .run(pg.client().query(&statement, &Pg::params(args)))
                    .map_err(|e| pg.failed(e))?;
                rows.iter().map(|row| read(&Row::Pg(row))).collect()
            }
        }
    }

    /// The first row of a query, if it has one.
    pub fn query_opt<T>(
        &self,
        sql: &str,
        args: &[Value],
        read: impl FnOnce(&Row<'_>) -> Result<T, CatalogError>,
    ) -> Result<Option<T>, CatalogError> {
        let mut read = Some(read);
        let mut first = self.query(sql, args, |row| match read.take() {
            Some(read) => read(row).map(Some),
            None => Ok(None),
        })?;
        Ok(if first.is_empty() { None } else { first.swap_remove(0) })
    }

    /// The one row of a query that always has one (a count, an `EXISTS`).
    pub fn query_one<T>(
        &self,
        sql: &str,
        args: &[Value],
        read: impl FnOnce(&Row<'_>) -> Result<T, CatalogError>,
    ) -> Result<T, CatalogError> {
        self.query_opt(sql, args, read)?.ok_or(CatalogError::NoRow)
    }

    /// Runs `f` in one transaction (a savepoint inside another), committed when it succeeds and
    /// rolled back when it fails.
    pub fn transaction<T, E: From<CatalogError>>(&self, f: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let begin = match self.backend {
            Backend::Lite(_) => "BEGIN IMMEDIATE".to_string(),
            Backend::Pg(_) => format!("BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})"),
        };
        self.within(begin, f)
    }

    /// Runs `f` reading one snapshot: commits other processes make meanwhile are not seen, and
    /// no writer waits for it (a deferred read transaction in SQLite's WAL, a repeatable-read one
    /// in PostgreSQL). Inside a transaction, that transaction's view.
    pub fn snapshot<T, E: From<CatalogError>>(&self, f: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let begin = match self.backend {
            Backend::Lite(_) => "BEGIN DEFERRED",
            Backend::Pg(_) => "BEGIN ISOLATION LEVEL REPEATABLE READ",
        };
        self.within(begin.to_string(), f)
    }

    /// Runs `f` in a transaction begun by `begin` (a savepoint inside another transaction).
    fn within<T, E: From<CatalogError>>(&self, begin: String, f: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let depth = self.depth.get();
        let (begin, commit, rollback) = match depth {
            0 => (begin, "COMMIT".to_string(), "ROLLBACK".to_string()),
            n => (
                format!("SAVEPOINT s{n}"),
                format!("RELEASE SAVEPOINT s{n}"),
                format!("ROLLBACK TO SAVEPOINT s{n}; RELEASE SAVEPOINT s{n}"),
            ),
        };
        if let Err(e) = self.batch(&begin) {
            // A begin that failed part way (the lock's wait cancelled) leaves nothing open.
            if depth == 0 {
                let _ = self.finish(&rollback);
            }
            return Err(e.into());
        }
        // Rolled back and closed however `f` ends, a panic included (a caught one must not leave
        // the connection inside a transaction that holds the write lock).
        let mut open = Open {
            db: self,
            depth,
            rollback: Some(rollback),
        };
        self.depth.set(depth + 1);
        let value = f()?;
        open.rollback = None;
        drop(open);
        if let Err(e) = self.finish(&commit) {
            if depth == 0 {
                let _ = self.finish("ROLLBACK");
            }
            return Err(e.into());
        }
        Ok(value)
    }

    /// After rows were written with their ids: `tables`' next ids follow the largest (SQLite's
    /// always do).
    pub fn renumber(&self, tables: &[&str]) -> Result<(), CatalogError> {
        if let Backend::Pg(_) = self.backend {
            for table in tables {
                self.query_one(
                    &format!(
                        "SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                    ),
                    &[],
                    |_| Ok(()),
                )?;
            }
        }
        Ok(())
    }

    fn batch(&self, sql: &str) -> Result<(), CatalogError> {
        match &self.backend {
            Backend::Lite(conn) => Ok(conn.execute_batch(sql)?),
            Backend::Pg(pg) => {
                self.revive(pg)?;
                pg.batch(sql)
            }
        }
    }

    /// Ends a transaction (or a savepoint) on the connection it began on: never on one opened
    /// again, where a commit would say nothing of a transaction the server already rolled back.
    fn finish(&self, sql: &str) -> Result<(), CatalogError> {
        match &self.backend {
            Backend::Lite(conn) => Ok(conn.execute_batch(sql)?),
            Backend::Pg(pg) => pg.batch(sql),
        }
    }

    /// A closed connection opened again, outside a transaction.
    fn revive(&self, pg: &Pg) -> Result<(), CatalogError> {
        if self.depth.get() == 0 {
            pg.revive()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::dollar_placeholders;

    #[test]
    fn placeholders_are_numbered_with_dollars() {
        assert_eq!(
            dollar_placeholders("SELECT a FROM t WHERE b = ?1 AND c IN (?2, ?12) AND d = '?'"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $12) AND d = '?'"
        );
    }
}
