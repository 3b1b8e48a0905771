//! Affine matrices as PDF writes them: `[a b c d e f]`, points as row vectors (`p' = p × M`).

/// A 2-D affine transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Matrix {
    pub a: f32,
    pub b: f32,
    pub c: f32,
    pub d: f32,
    pub e: f32,
    pub f: f32,
}

impl Matrix {
    pub const IDENTITY: Matrix = Matrix {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        e: 0.0,
        f: 0.0,
    };

    /// From six numbers; `None` unless there are six finite ones.
    pub fn from_slice(values: &[f32]) -> Option<Matrix> {
        match *values {
            [a, b, c, d, e, f] if values.iter().all(|v| v.is_finite()) => Some(Matrix { a, b, c, d, e, f }),
            _ => None,
        }
    }

    pub fn translate(x: f32, y: f32) -> Matrix {
        Matrix {
            e: x,
            f: y,
            ..Matrix::IDENTITY
        }
    }

    /// `self` then `other`: the matrix that applies `self` first.
    pub fn then(&self, other: &Matrix) -> Matrix {
        Matrix {
            a: self.a * other.a + self.b * other.c,
            b: self.a * other.b + self.b * other.d,
            c: self.c * other.a + self.d * other.c,
            d: self.c * other.b + self.d * other.d,
            e: self.e * other.a + self.f * other.c + other.e,
            f: self.e * other.b + self.f * other.d + other.f,
        }
    }

    /// Where a point goes.
    pub fn apply(&self, x: f32, y: f32) -> (f32, f32) {
        (x * self.a + y * self.c + self.e, x * self.b + y * self.d + self.f)
    }

    /// Where a vector goes (no translation).
    pub fn apply_vector(&self, x: f32, y: f32) -> (f32, f32) {
        (x * self.a + y * self.c, x * self.b + y * self.d)
    }

    /// The factor areas scale by, as a length: the square root of the determinant's magnitude.
    pub fn scale(&self) -> f32 {
        (self.a * self.d - self.b * self.c).abs().sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::Matrix;

    #[test]
    fn then_applies_the_first_matrix_first() {
        let scale = Matrix::from_slice(&[2.0, 0.0, 0.0, 2.0, 0.0, 0.0]).unwrap_or(Matrix::IDENTITY);
        let moved = Matrix::translate(10.0, 5.0);
        assert_eq!(scale.then(&moved).apply(1.0, 1.0), (12.0, 7.0));
        assert_eq!(moved.then(&scale).apply(1.0, 1.0), (22.0, 12.0));
        assert_eq!(scale.scale(), 2.0);
        assert_eq!(Matrix::from_slice(&[1.0, f32::NAN, 0.0, 1.0, 0.0, 0.0]), None);
    }
}
