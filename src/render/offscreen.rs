//! Off-screen rendering into a texture and reading the pixels back; PNG output.

use super::volume::{RenderSettings, VolumeBox, VolumeRenderer};
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

    /// Writes a PNG atomically: to a temporary file in the same folder, renamed when complete,
    /// so a failure never leaves a partial file under `path`. Missing folders are created.
    pub fn save_png(&self, path: &Path) -> Result<(), RenderError> {
        let err = |m: String| RenderError::Write {
            path: path.to_path_buf(),
            message: m,
        };
        let bytes = self.to_png().map_err(err)?;
        crate::export::writer::write_atomic(path, |w| w.write_all(&bytes)).map_err(|e| match e {
            crate::export::ExportError::Write { source, .. } => err(source.to_string()),
            other => err(other.to_string()),
        })
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
        .map_err(|e| RenderError::Resource(format!("{width}x{height} render target: {e}")))?;
        Ok(Self { texture })
    }

    /// A framebuffer drawing into this target.
    pub fn framebuffer<'a>(
        &'a self,
        facade: &impl Facade,
    ) -> Result<SimpleFrameBuffer<'a>, RenderError> {
        SimpleFrameBuffer::new(facade, &self.texture)
            .map_err(|e| RenderError::Resource(e.to_string()))
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
        let (w, h) = (self.texture.width(), self.texture.height());
        let mut fb = SimpleFrameBuffer::new(facade, &self.texture)
            .map_err(|e| RenderError::Resource(e.to_string()))?;
        let t = Instant::now();
        fb.clear_color(0.0, 0.0, 0.0, 1.0);
        let viewport = Rect {
            left: 0,
            bottom: 0,
            width: w,
            height: h,
        };
        renderer.draw(facade, &mut fb, viewport, camera, bx, settings)?;
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
