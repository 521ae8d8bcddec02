//! A background writer: frames go through a bounded queue to a thread that writes them, so
//! the simulation never waits on the disk unless the queue is full (then it waits rather than
//! dropping a frame). A failed write stops the recorder and is reported; the caller keeps
//! running.

use super::run::{Existing, RunWriter};
use super::ExportOptions;
use crate::frame::Frame;
use crate::scene::Scene;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Frames that may wait in the queue.
pub const QUEUE_CAPACITY: usize = 3;

/// What the recorder has done, for the panel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecorderStatus {
    /// Frames written since start.
    pub written: u32,
    /// Frames waiting in the queue.
    pub queued: usize,
    /// The last file written.
    pub last_file: Option<String>,
    /// The last error; set when a write failed.
    pub last_error: Option<String>,
}

struct Job {
    frame: Frame,
    dir: PathBuf,
    opts: ExportOptions,
    scene: Scene,
    existing: Existing,
    backend: &'static str,
}

struct Shared {
    status: Mutex<RecorderStatus>,
    queued: AtomicUsize,
    failed: AtomicBool,
}

/// Handle to the writer thread.
pub struct Recorder {
    tx: Option<SyncSender<Job>>,
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
}

impl Recorder {
    /// Starts the writer thread.
    pub fn spawn() -> std::io::Result<Self> {
        let (tx, rx) = sync_channel::<Job>(QUEUE_CAPACITY);
        let shared = Arc::new(Shared {
            status: Mutex::new(RecorderStatus::default()),
            queued: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
        });
        let sh = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("plume-writer".into())
            .spawn(move || {
                // The current recording's writer: it holds the folder's lock, and frames of
                // the same folder and options continue its numbering and manifest.
                let mut current: Option<RunWriter> = None;
                for job in rx {
                    // A job counts as queued until it has been handled, so `flush` waits for
                    // the write itself and not only for the hand-over.
                    let _done = Handled(&sh.queued);
                    if sh.failed.load(Ordering::SeqCst) {
                        continue; // drain what was queued before the failure
                    }
                    // New folder or new options: a new manifest (its formats and fields must
                    // describe the files it lists).
                    let same = current
                        .as_ref()
                        .is_some_and(|w| w.dir() == job.dir && *w.options() == job.opts);
                    if !same {
                        current = None; // releases the previous folder's lock
                        let made = RunWriter::create_from(
                            &job.dir,
                            &job.scene,
                            &job.opts,
                            job.existing,
                            None,
                            job.backend,
                        );
                        match made {
                            Ok((w, _)) => current = Some(w),
                            Err(e) => {
                                fail(&sh, crate::report(&e));
                                continue;
                            }
                        }
                    }
                    let Some(writer) = current.as_mut() else {
                        continue;
                    };
                    match writer.write(&job.frame) {
                        Ok((_, files)) => {
                            let last = files.last().cloned();
                            if let Ok(mut s) = sh.status.lock() {
                                s.written += 1;
                                s.last_file = last.map(|f| job.dir.join(f).display().to_string());
                            }
                        }
                        Err(e) => fail(&sh, crate::report(&e)),
                    }
                }
            })?;
        Ok(Self {
            tx: Some(tx),
            shared,
            handle: Some(handle),
        })
    }

    /// Queues a frame for `dir`; blocks while the queue is full. Returns false when the
    /// recorder has failed (the frame is not queued). The first frame into a folder opens it
    /// as a run ([`RunWriter::create`]): an earlier run there is refused, replaced or
    /// continued as `existing` says.
    pub fn submit(
        &self,
        frame: Frame,
        dir: &Path,
        opts: &ExportOptions,
        scene: &Scene,
        existing: Existing,
    ) -> bool {
        self.submit_from(frame, dir, opts, scene, existing, "")
    }

    /// [`Recorder::submit`] naming the solver backend that made the frame (the manifest
    /// records it).
    pub fn submit_from(
        &self,
        frame: Frame,
        dir: &Path,
        opts: &ExportOptions,
        scene: &Scene,
        existing: Existing,
        backend: &'static str,
    ) -> bool {
        if self.failed() {
            return false;
        }
        let Some(tx) = &self.tx else { return false };
        self.shared.queued.fetch_add(1, Ordering::SeqCst);
        let job = Job {
            frame,
            dir: dir.to_path_buf(),
            opts: opts.clone(),
            scene: scene.clone(),
            existing,
            backend,
        };
        if tx.send(job).is_err() {
            self.shared.queued.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// True after a failed write, until [`Recorder::clear_error`].
    pub fn failed(&self) -> bool {
        self.shared.failed.load(Ordering::SeqCst)
    }

    /// Forgets a failure so writing can be tried again.
    pub fn clear_error(&self) {
        self.shared.failed.store(false, Ordering::SeqCst);
        if let Ok(mut s) = self.shared.status.lock() {
            s.last_error = None;
        }
    }

    /// Current status.
    pub fn status(&self) -> RecorderStatus {
        let mut s = self
            .shared
            .status
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        s.queued = self.shared.queued.load(Ordering::SeqCst);
        s
    }

    /// Waits until every queued frame has been handled.
    pub fn flush(&self) {
        while self.shared.queued.load(Ordering::SeqCst) > 0 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

/// Decrements the queued count when dropped (at the end of each job, however it ends).
struct Handled<'a>(&'a AtomicUsize);

impl Drop for Handled<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn fail(sh: &Shared, msg: String) {
    sh.failed.store(true, Ordering::SeqCst);
    if let Ok(mut s) = sh.status.lock() {
        s.last_error = Some(msg);
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // Closing the channel lets the thread finish what is queued and stop.
        self.tx.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{Fields, Format};
    use crate::sim::Dims;

    fn frame() -> Frame {
        let d = Dims::cube(6);
        Frame {
            density: Some(vec![0.5; d.cells()]),
            ..Frame::empty(crate::sim::Grid::unit(d).expect("grid"), 1, 0.1)
        }
    }

    fn opts() -> ExportOptions {
        ExportOptions {
            formats: vec![Format::Npy],
            fields: Fields {
                density: true,
                velocity: false,
                ..Fields::NONE
            },
            ..ExportOptions::default()
        }
    }

    #[test]
    fn frames_are_written_in_order_with_a_manifest() {
        let dir = std::env::temp_dir().join(format!("plume-rec-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rec = Recorder::spawn().expect("thread");
        for _ in 0..5 {
            assert!(rec.submit(frame(), &dir, &opts(), &Scene::default(), Existing::Refuse));
        }
        rec.flush();
        let st = rec.status();
        assert_eq!((st.written, st.queued, st.last_error.clone()), (5, 0, None));
        for n in 1..=5 {
            assert!(dir.join(format!("plume_density_{n:04}.npy")).exists());
        }
        let m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
        )
        .expect("json");
        assert_eq!(m["frames"].as_array().map(|a| a.len()), Some(5));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_failed_write_stops_the_recorder_and_is_reported() {
        let base = std::env::temp_dir().join(format!("plume-recfail-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).expect("dir");
        let blocker = base.join("file");
        std::fs::write(&blocker, b"x").expect("file");
        let rec = Recorder::spawn().expect("thread");
        assert!(rec.submit(
            frame(),
            &blocker.join("sub"),
            &opts(),
            &Scene::default(),
            Existing::Refuse
        ));
        rec.flush();
        assert!(rec.failed());
        let st = rec.status();
        assert_eq!(st.written, 0);
        assert!(
            st.last_error
                .as_deref()
                .is_some_and(|e| e.contains("sub") && e.contains("output folder")),
            "{st:?}"
        );
        assert!(
            !rec.submit(frame(), &base, &opts(), &Scene::default(), Existing::Refuse),
            "a failed recorder refuses frames"
        );
        rec.clear_error();
        assert!(rec.submit(frame(), &base, &opts(), &Scene::default(), Existing::Refuse));
        rec.flush();
        assert_eq!(rec.status().written, 1);
        std::fs::remove_dir_all(&base).ok();
    }
}
