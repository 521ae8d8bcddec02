//! Off-screen rendering into a texture and reading the pixels back; PNG output.

use super::volume::{RenderSettings, VolumeBox, VolumeRenderer};
use super::Cause;
use super::RenderError;
use crate::camera::OrbitCamera;
use glium::backend::Facade;
use glium::framebuffer::SimpleFrameBuffer;
use glium::texture::{MipmapsOption, RawImage2d, Texture2d, UncompressedFloatFormat};
use glium::{Rect, Surface};
use std::path::Path;
use std::time::Instant;

/// Largest image side accepted.
pub const MAX_IMAGE_SIDE: u32 = 16384;

/// An 8-bit RGBA image, rows from top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width·height·4` bytes.
    pub rgba: Vec<u8>,
}

impl Image {
    /// The pixel at (x, y), y counted from the top.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = 4 * (y as usize * self.width as usize + x as usize);
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    /// Encodes the image as PNG bytes.
    pub fn to_png(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width, self.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().map_err(|e| e.to_string())?;
            w.write_image_data(&self.rgba).map_err(|e| e.to_string())?;
        }
        Ok(out)
    }

    /// Encodes the image as a baseline JPEG of the given quality (1..=100). JPEG has no
    /// alpha: the rendered images are opaque (composited over the background), so alpha is
    /// dropped.
    pub fn to_jpeg(&self, quality: u8) -> Result<Vec<u8>, String> {
        let (w, h) = (
            u16::try_from(self.width).map_err(|_| "JPEG images are at most 65535 pixels wide")?,
            u16::try_from(self.height).map_err(|_| "JPEG images are at most 65535 pixels high")?,
        );
        let mut out = Vec::new();
        jpeg_encoder::Encoder::new(&mut out, quality.clamp(1, 100))
            .encode(&self.rgba, w, h, jpeg_encoder::ColorType::Rgba)
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    /// Writes the image in the format its extension names (`.png`, or `.jpg`/`.jpeg` at
    /// quality 92), atomically: to a temporary file in the same folder, renamed when
    /// complete, so a failure never leaves a partial file under `path`. Missing folders are
    /// created. Any other extension is refused before anything is written.
    pub fn save(&self, path: &Path) -> Result<(), RenderError> {
        let err = |e: Cause| RenderError::Write {
            path: path.to_path_buf(),
            source: e,
        };
        let bytes = match ImageFormat::of_path(path)? {
            ImageFormat::Png => self.to_png(),
            ImageFormat::Jpeg => self.to_jpeg(92),
        }
        .map_err(|m| err(m.into()))?;
        crate::atomic::write_atomic(path, |w| w.write_all(&bytes)).map_err(|e| err(e.source.into()))
    }
}

/// The image file formats Plume writes, chosen by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// `.png`: lossless, the default for screenshots and render sequences.
    Png,
    /// `.jpg` or `.jpeg`: baseline JPEG, quality 92.
    Jpeg,
}

impl ImageFormat {
    /// The format `path`'s extension names (case-insensitive); an error naming the file
    /// and the extensions Plume writes for anything else, including no extension.
    pub fn of_path(path: &Path) -> Result<Self, RenderError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("png") => Ok(Self::Png),
            Some("jpg" | "jpeg") => Ok(Self::Jpeg),
            _ => Err(RenderError::Write {
                path: path.to_path_buf(),
                source: "images are written as PNG (.png) or JPEG (.jpg, .jpeg), and \
                         flipbooks (plume render --every K) as animated GIF (.gif); name the \
                         file with one of those extensions"
                    .into(),
            }),
        }
    }
}

/// An off-screen RGBA8 colour target of a fixed size.
pub struct Offscreen {
    texture: Texture2d,
}

impl Offscreen {
    /// A target of `width`×`height` pixels.
    pub fn new(facade: &impl Facade, width: u32, height: u32) -> Result<Self, RenderError> {
        if width == 0 || height == 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
            return Err(RenderError::InvalidSetting(format!(
                "image size {width}x{height} is outside 1..={MAX_IMAGE_SIDE} per side"
            )));
        }
        let texture = Texture2d::empty_with_format(
            facade,
            UncompressedFloatFormat::U8U8U8U8,
            MipmapsOption::NoMipmap,
            width,
            height,
        )
        .map_err(|e| RenderError::resource(format!("{width}x{height} render target"), e))?;
        Ok(Self { texture })
    }

    /// A framebuffer drawing into this target.
    pub fn framebuffer<'a>(
        &'a self,
        facade: &impl Facade,
    ) -> Result<SimpleFrameBuffer<'a>, RenderError> {
        SimpleFrameBuffer::new(facade, &self.texture)
            .map_err(|e| RenderError::resource("framebuffer of the render target", e))
    }

    /// Copies the target's pixels onto another surface (stretched to fill it).
    pub fn copy_to<S: Surface>(&self, dest: &S) {
        self.texture
            .as_surface()
            .fill(dest, glium::uniforms::MagnifySamplerFilter::Nearest);
    }

    /// Reads the pixels back as an image (top row first).
    pub fn read(&self) -> Image {
        let (w, h) = (self.texture.width(), self.texture.height());
        let raw: RawImage2d<u8> = self.texture.read();
        // OpenGL rows run bottom to top; images run top to bottom.
        let row = 4 * w as usize;
        let mut rgba = Vec::with_capacity(raw.data.len());
        for y in (0..h as usize).rev() {
            rgba.extend_from_slice(&raw.data[y * row..(y + 1) * row]);
        }
        Image {
            width: w,
            height: h,
            rgba,
        }
    }

    /// Draws the volume and returns the image and the milliseconds the GPU took.
    pub fn render(
        &self,
        facade: &impl Facade,
        renderer: &VolumeRenderer,
        camera: &OrbitCamera,
        bx: &VolumeBox,
        settings: &RenderSettings,
    ) -> Result<(Image, f64), RenderError> {
        self.render_with(facade, renderer, camera, bx, settings, &[])
    }

    /// [`Offscreen::render`] with streamline segments drawn over the volume (see
    /// [`VolumeRenderer::draw_streamlines`]).
    pub fn render_with(
        &self,
        facade: &impl Facade,
        renderer: &VolumeRenderer,
        camera: &OrbitCamera,
        bx: &VolumeBox,
        settings: &RenderSettings,
        streamlines: &[super::volume::StreamVertex],
    ) -> Result<(Image, f64), RenderError> {
        let (w, h) = (self.texture.width(), self.texture.height());
        let mut fb = SimpleFrameBuffer::new(facade, &self.texture)
            .map_err(|e| RenderError::resource("framebuffer of the render target", e))?;
        let t = Instant::now();
        fb.clear_color(0.0, 0.0, 0.0, 1.0);
        let viewport = Rect {
            left: 0,
            bottom: 0,
            width: w,
            height: h,
        };
        renderer.draw(facade, &mut fb, viewport, camera, bx, settings)?;
        renderer.draw_streamlines(facade, &mut fb, viewport, camera, bx, settings, streamlines)?;
        facade.get_context().finish();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        Ok((self.read(), ms))
    }
}

/// Convenience: renders one image of `width`×`height`.
pub fn render_image(
    facade: &impl Facade,
    renderer: &VolumeRenderer,
    width: u32,
    height: u32,
    camera: &OrbitCamera,
    bx: &VolumeBox,
    settings: &RenderSettings,
) -> Result<(Image, f64), RenderError> {
    Offscreen::new(facade, width, height)?.render(facade, renderer, camera, bx, settings)
}

/// A frame drawn as `plume render` draws it, without a window: the obstacles and the
/// frame's smoke and flame uploaded to `renderer`, then `width`×`height` pixels through
/// `camera` with `settings`. The Python module's renders and a wedge's thumbnails use it.
#[allow(clippy::too_many_arguments)]
pub fn snapshot(
    facade: &impl Facade,
    renderer: &mut VolumeRenderer,
    frame: &crate::frame::Frame,
    obstacles: &[crate::sim::Obstacle],
    settings: &RenderSettings,
    camera: &OrbitCamera,
    width: u32,
    height: u32,
) -> Result<Image, RenderError> {
    renderer.set_obstacles(facade, obstacles)?;
    renderer.upload_frame(facade, frame, settings.kelvin_per_unit)?;
    let bx = VolumeBox::of_grid(&frame.grid);
    let target = Offscreen::new(facade, width, height)?;
    target
        .render(facade, renderer, camera, &bx, settings)
        .map(|(img, _)| img)
}
