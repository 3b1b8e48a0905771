//! Dot products: `i8` for the scan (AVX-512 VNNI or AVX2 intrinsics when the CPU has them, chosen
//! at run time) and `f32` for exact rescoring.

/// The dot product of two `i8` vectors of equal length (extra elements of the longer are ignored).
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        if has_vnni() {
            // SAFETY: the CPU supports AVX-512F, BW and VNNI, checked just above.
            return unsafe { dot_i8_vnni(a, b) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { dot_i8_avx2(a, b) };
        }
    }
    dot_i8_portable(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let mut acc = _mm256_setzero_si256();
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: `i + 16 <= n` keeps both 16-byte unaligned loads inside the slices.
        let (x, y) = unsafe {
            (
                _mm_loadu_si128(a.as_ptr().add(i).cast()),
                _mm_loadu_si128(b.as_ptr().add(i).cast()),
            )
        };
        // Sign-extend 16 bytes to 16 lanes of i16, multiply, and add pairs into 8 lanes of i32:
        // |x * y| <= 127 * 127, so a pair sum never overflows.
        let products = _mm256_madd_epi16(_mm256_cvtepi8_epi16(x), _mm256_cvtepi8_epi16(y));
        acc = _mm256_add_epi32(acc, products);
        i += 16;
    }
    let mut lanes = [0i32; 8];
    // SAFETY: `lanes` is 32 bytes, the size of one unaligned 256-bit store.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc) };
    lanes.iter().sum::<i32>() + dot_i8_portable(&a[i..n], &b[i..n])
}

/// Whether the CPU multiplies bytes with AVX-512 VNNI (`vpdpbusd`).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_vnni() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vnni")
}

/// 64 bytes a step with `vpdpbusd`, which multiplies unsigned by signed bytes: `a` is made
/// unsigned by adding 128 (flipping its sign bit), and 128 times the sum of `b` taken off again.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn dot_i8_vnni(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let (mut acc, mut sum_b) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let (flip, ones) = (_mm512_set1_epi8(i8::MIN), _mm512_set1_epi8(1));
    let mut i = 0;
    while i + 64 <= n {
        // SAFETY: `i + 64 <= n` keeps both 64-byte unaligned loads inside the slices.
        let (x, y) = unsafe {
            (
                _mm512_loadu_si512(a.as_ptr().add(i).cast()),
                _mm512_loadu_si512(b.as_ptr().add(i).cast()),
            )
        };
        // Each lane adds four products of at most 255 * 128: no overflow below millions of bytes.
        acc = _mm512_dpbusd_epi32(acc, _mm512_xor_si512(x, flip), y);
        sum_b = _mm512_dpbusd_epi32(sum_b, ones, y);
        i += 64;
    }
    _mm512_reduce_add_epi32(acc) - 128 * _mm512_reduce_add_epi32(sum_b) + dot_i8_portable(&a[i..n], &b[i..n])
}

#[inline(always)]
fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum()
}

/// The dot product of two `f32` vectors of equal length (extra elements of the longer are ignored).
pub fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    // Eight independent accumulators let the compiler vectorise without reassociating a single sum.
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn simd_and_portable_agree(v in prop::collection::vec((any::<i8>(), any::<i8>()), 0..1000)) {
            let (a, b): (Vec<i8>, Vec<i8>) = v.into_iter().unzip();
            let plain = dot_i8_portable(&a, &b);
            prop_assert_eq!(dot_i8(&a, &b), plain);
            #[cfg(target_arch = "x86_64")]
            {
                // Every kernel this CPU has, whichever dot_i8 chose.
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2.
                    prop_assert_eq!(unsafe { dot_i8_avx2(&a, &b) }, plain);
                }
                if has_vnni() {
                    // SAFETY: the CPU supports AVX-512F, BW and VNNI.
                    prop_assert_eq!(unsafe { dot_i8_vnni(&a, &b) }, plain);
                }
            }
        }

        #[test]
        fn f32_matches_a_plain_sum(v in prop::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 0..500)) {
            let (a, b): (Vec<f32>, Vec<f32>) = v.into_iter().unzip();
            let plain: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            prop_assert!((f64::from(dot_f32(&a, &b)) - plain).abs() < 1e-3);
        }
    }
}
