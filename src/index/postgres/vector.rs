//! pgvector's `vector` on the wire: its binary form is the dimension (u16), a reserved u16, then
//! each component as a big-endian f32.

use bytes::{Buf, BufMut, BytesMut};
use tokio_postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};

type Failure = Box<dyn std::error::Error + Sync + Send>;

/// A vector as pgvector stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct PgVector(pub Vec<f32>);

impl ToSql for PgVector {
    fn to_sql(&self, _ty: &Type, out: &mut BytesMut) -> Result<IsNull, Failure> {
        out.put_u16(u16::try_from(self.0.len())?);
        out.put_u16(0);
        for x in &self.0 {
            out.put_f32(*x);
        }
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "vector"
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for PgVector {
    fn from_sql(_ty: &Type, mut raw: &'a [u8]) -> Result<PgVector, Failure> {
        if raw.len() < 4 {
            return Err("a vector shorter than its header".into());
        }
        let dimension = usize::from(raw.get_u16());
        raw.advance(2);
        if raw.len() != dimension * 4 {
            return Err(format!("a vector of {dimension} dimensions in {} bytes", raw.len()).into());
        }
        Ok(PgVector((0..dimension).map(|_| raw.get_f32()).collect()))
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "vector"
    }
}
