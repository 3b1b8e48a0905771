//! How often progress is passed on: at the first report, then at most once per interval, so that
//! a step reporting every page or every read block writes the catalog, or messages the window,
//! a few times a second rather than thousands.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// Says when progress is next due: at the first ask, then once `every` has passed since the last
/// report it let through.
pub struct Throttle {
    every: Duration,
    last: Cell<Option<Instant>>,
}

impl Throttle {
    pub fn every(every: Duration) -> Throttle {
        Throttle {
            every,
            last: Cell::new(None),
        }
    }

    /// Whether a report is due now; if it is, the interval starts again.
    pub fn due(&self) -> bool {
        let due = self.last.get().is_none_or(|at| at.elapsed() >= self.every);
        if due {
            self.last.set(Some(Instant::now()));
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_report_is_due_then_one_per_interval() {
        let throttle = Throttle::every(Duration::from_millis(500));
        assert!(throttle.due());
        assert!(!throttle.due());
        std::thread::sleep(Duration::from_millis(600));
        assert!(throttle.due());
        assert!(!throttle.due());
    }
}
