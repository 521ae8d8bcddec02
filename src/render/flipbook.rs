//! Flipbooks: the frames of a run as one animated GIF (`plume render --every K --out x.gif`),
//! each frame held for the simulated time it stands for, so the file plays at real time.
//! Frames are encoded into a temporary in the output's folder as they come (memory stays
//! flat whatever their number) and the file appears whole, by rename, at the end.

use super::{Image, RenderError};
use crate::atomic::Streamed;
use std::path::{Path, PathBuf};

/// The largest flipbook `render` writes: GIF players and browsers load the whole file, and
/// few take files past a few GiB.
pub const MAX_BYTES: u64 = 4 << 30;

/// The most bytes a `width`×`height` frame takes in the file: one byte a pixel (LZW
/// compresses the palette indices, and never grows them by more than its code-size steps,
/// well within the 1 KiB added) and its palette and headers.
pub fn frame_bytes_at_most(width: u32, height: u32) -> u64 {
    let px = u64::from(width) * u64::from(height);
    px + px / 8 + 1024
}

/// The shortest delay a GIF frame can ask for and be shown for: browsers and most viewers
/// show frames that ask for less than 2/100 s for 1/10 s instead.
pub const MIN_DELAY_CS: u16 = 2;

/// Whether `path` names a GIF (its extension, case-insensitive).
pub fn is_gif(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gif"))
}

/// An animated GIF being written (each frame compressed into the temporary as it comes),
/// renamed into place by [`Flipbook::save`]; dropped unsaved, it leaves nothing.
pub struct Flipbook {
    path: PathBuf,
    encoder: gif::Encoder<Streamed>,
    size: (u16, u16),
    /// Centiseconds of the timeline already given to frames.
    shown_cs: u64,
    frames: usize,
}

impl Flipbook {
    /// A flipbook of `width`×`height` frames to be written to `path`, playing in a loop:
    /// `frames` of them are coming. Checked before any frame is drawn: a name that is a
    /// folder or cannot be created, and a file that could outgrow the disk's free space or
    /// [`MAX_BYTES`], are refused with the figures.
    pub fn new(path: &Path, width: u32, height: u32, frames: u64) -> Result<Self, RenderError> {
        let err = |e: String| RenderError::Write {
            path: path.to_path_buf(),
            source: e.into(),
        };
        let side = |v: u32, what: &str| {
            u16::try_from(v).map_err(|_| err(format!("GIF images are at most 65535 pixels {what}")))
        };
        let size = (side(width, "wide")?, side(height, "high")?);
        let most = frames.saturating_mul(frame_bytes_at_most(width, height)) + 1024;
        let human = crate::sim::solver::memory::human;
        if most > MAX_BYTES {
            return Err(err(format!(
                "{frames} frames of {width}×{height} may take up to {}, more than the {} a \
                 flipbook may take; draw fewer frames (a larger --every, fewer --steps) or \
                 smaller ones",
                human(most),
                human(MAX_BYTES)
            )));
        }
        let folder = path.parent().unwrap_or(Path::new("."));
        if let Some(free) = crate::atomic::free_bytes(folder) {
            if most > free {
                return Err(err(format!(
                    "{frames} frames of {width}×{height} may take up to {}, but the disk \
                     holding {} has {} free",
                    human(most),
                    folder.display(),
                    human(free)
                )));
            }
        }
        let file = Streamed::create(path).map_err(|e| RenderError::Write {
            path: path.to_path_buf(),
            source: e.source.into(),
        })?;
        let mut encoder =
            gif::Encoder::new(file, size.0, size.1, &[]).map_err(|e| err(e.to_string()))?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| err(e.to_string()))?;
        Ok(Self {
            path: path.to_path_buf(),
            encoder,
            size,
            shown_cs: 0,
            frames: 0,
        })
    }

    /// Adds `img`, shown until `until` seconds of the timeline (the next frame's time, so
    /// the delays add up to the real time without the rounding piling up). Returns the
    /// frame's delay in hundredths of a second (at least [`MIN_DELAY_CS`]).
    pub fn push(&mut self, img: &Image, until: f64) -> Result<u16, RenderError> {
        if (img.width, img.height) != (u32::from(self.size.0), u32::from(self.size.1)) {
            return Err(RenderError::Write {
                path: self.path.clone(),
                source: "every frame of a flipbook has the same size".into(),
            });
        }
        let end = (until.max(0.0) * 100.0).round() as u64;
        let delay = end
            .saturating_sub(self.shown_cs)
            .clamp(u64::from(MIN_DELAY_CS), u64::from(u16::MAX)) as u16;
        self.shown_cs += u64::from(delay);
        let mut rgba = img.rgba.clone();
        // Speed 10 of NeuQuant's 1–30: a good palette at a tenth of a second per megapixel.
        let mut frame = gif::Frame::from_rgba_speed(self.size.0, self.size.1, &mut rgba, 10);
        frame.delay = delay;
        self.encoder
            .write_frame(&frame)
            .map_err(|e| RenderError::Write {
                path: self.path.clone(),
                source: e.to_string().into(),
            })?;
        self.frames += 1;
        Ok(delay)
    }

    /// Frames added so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Seconds the flipbook plays for, once round.
    pub fn seconds(&self) -> f64 {
        self.shown_cs as f64 / 100.0
    }

    /// Finishes the file (the temporary renamed into place: no partial file under the
    /// name); returns its size in bytes.
    pub fn save(self) -> Result<u64, RenderError> {
        let path = self.path.clone();
        let err = |e: crate::render::Cause| RenderError::Write {
            path: path.clone(),
            source: e,
        };
        let file = self
            .encoder
            .into_inner()
            .map_err(|e| err(e.to_string().into()))?;
        file.commit().map_err(|e| err(e.source.into()))
    }
}
