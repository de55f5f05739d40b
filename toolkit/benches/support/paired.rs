//! Ratios of two bodies timed in alternating batches, for benches that compare a call with its
//! floor. Criterion times one body after the other, seconds apart; on a shared machine the
//! floor alone moves by up to half between runs, so a ratio of two separate timings is worth
//! about ±0.3x. Timing the two in short batches that take turns (the order flipping each round)
//! puts both under the same conditions, and the median of many rounds' ratios is steady.
//! A bench includes it with `#[path = "support/paired.rs"] mod paired;`.

#![allow(dead_code)] // Each bench that includes this uses part of it.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rounds of one batch of each body; their ratios' median and quartiles are reported.
const ROUNDS: usize = 101;

/// How long one batch of the floor should take: long enough for the clock, short enough that
/// the machine's state changes little between the two batches of a round.
const BATCH: Duration = Duration::from_micros(500);

/// `candidate`'s time over `floor`'s, per round: the median and the middle half; and each
/// body's median time per round.
pub(crate) struct PairedRatio {
    pub median: f64,
    pub lower_quartile: f64,
    pub upper_quartile: f64,
    pub floor_time: Duration,
    pub candidate_time: Duration,
}

impl std::fmt::Display for PairedRatio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.2}x (middle half {:.2}x to {:.2}x, {ROUNDS} rounds taking turns)",
            self.median, self.lower_quartile, self.upper_quartile
        )
    }
}

/// Times `floor` and `candidate` in alternating batches of calls and returns their ratio.
pub(crate) fn paired_ratio<A, B>(
    mut floor: impl FnMut() -> A,
    mut candidate: impl FnMut() -> B,
) -> PairedRatio {
    let iterations = iterations_per_batch(&mut floor);
    let _ = time(&mut candidate, iterations);
    paired_runs(
        || time(&mut floor, iterations),
        || time(&mut candidate, iterations),
    )
}

/// Runs `floor` and `candidate` in turns, each returning the time it measured itself (so that
/// each can prepare its input outside the timing), and returns their ratio.
pub(crate) fn paired_runs(
    mut floor: impl FnMut() -> Duration,
    mut candidate: impl FnMut() -> Duration,
) -> PairedRatio {
    let (mut ratios, mut floor_times, mut candidate_times) = (vec![], vec![], vec![]);
    for round in 0..ROUNDS {
        let (floor_time, candidate_time) = if round % 2 == 0 {
            let floor_time = floor();
            (floor_time, candidate())
        } else {
            let candidate_time = candidate();
            (floor(), candidate_time)
        };
        ratios.push(candidate_time.as_secs_f64() / floor_time.as_secs_f64());
        floor_times.push(floor_time);
        candidate_times.push(candidate_time);
    }
    ratios.sort_by(f64::total_cmp);
    floor_times.sort();
    candidate_times.sort();
    PairedRatio {
        median: ratios[ROUNDS / 2],
        lower_quartile: ratios[ROUNDS / 4],
        upper_quartile: ratios[3 * ROUNDS / 4],
        floor_time: floor_times[ROUNDS / 2],
        candidate_time: candidate_times[ROUNDS / 2],
    }
}
/// How many calls of `body` take about one [`BATCH`] (at least one).
fn iterations_per_batch<R>(body: &mut impl FnMut() -> R) -> u32 {
    let mut iterations = 1;
    loop {
        let took = time(body, iterations);
        if took >= BATCH / 4 || iterations >= 1 << 24 {
            let per_call = took.as_secs_f64() / f64::from(iterations);
            return (BATCH.as_secs_f64() / per_call).clamp(1.0, f64::from(u32::MAX)) as u32;
        }
        iterations *= 2;
    }
}

fn time<R>(body: &mut impl FnMut() -> R, iterations: u32) -> Duration {
    let started = Instant::now();
    for _ in 0..iterations {
        black_box(body());
    }
    started.elapsed()
}
