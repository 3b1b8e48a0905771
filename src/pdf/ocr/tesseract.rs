//! Tesseract 5 through its C API, loaded at run time (`libtesseract.so.5`, Debian's
//! `tesseract-ocr`): a machine without it runs everything but OCR, and says how to install it.
//! Only the worker process calls it, one page at a time.

use std::cell::OnceCell;
use std::ffi::{c_char, c_float, c_int, c_uchar, c_void, CStr, CString};
use std::ptr;

use libloading::Library;

use super::render::Grey;

/// The shared library Debian's `libtesseract5` installs.
const LIBRARY: &str = "libtesseract.so.5";

/// Page iterator levels of the C API.
const LINE: c_int = 2;
const WORD: c_int = 3;
/// Page segmentation modes of the C API.
const PSM_OSD_ONLY: c_int = 0;
const PSM_AUTO: c_int = 3;

/// How sure the orientation engine must be before a page is turned (Tesseract's own scale).
const MIN_ORIENTATION_CONFIDENCE: c_float = 2.0;

type Handle = *mut c_void;
type Iterator = *mut c_void;

/// The functions of the C API that OCR needs.
struct Api {
    create: unsafe extern "C" fn() -> Handle,
    delete: unsafe extern "C" fn(Handle),
    end: unsafe extern "C" fn(Handle),
    init3: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_page_seg_mode: unsafe extern "C" fn(Handle, c_int),
    set_image: unsafe extern "C" fn(Handle, *const c_uchar, c_int, c_int, c_int, c_int),
    set_source_resolution: unsafe extern "C" fn(Handle, c_int),
    recognize: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    detect_orientation_script:
        unsafe extern "C" fn(Handle, *mut c_int, *mut c_float, *mut *const c_char, *mut c_float) -> c_int,
    get_iterator: unsafe extern "C" fn(Handle) -> Iterator,
    iterator_delete: unsafe extern "C" fn(Iterator),
    iterator_next: unsafe extern "C" fn(Iterator, c_int) -> c_int,
    iterator_text: unsafe extern "C" fn(Iterator, c_int) -> *mut c_char,
    iterator_confidence: unsafe extern "C" fn(Iterator, c_int) -> c_float,
    iterator_page: unsafe extern "C" fn(Iterator) -> *const c_void,
    page_is_at_beginning_of: unsafe extern "C" fn(*const c_void, c_int) -> c_int,
    bounding_box: unsafe extern "C" fn(*const c_void, c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int,
    delete_text: unsafe extern "C" fn(*mut c_char),
}

/// One recognised word.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    pub text: String,
    /// The word begins a line.
    pub starts_line: bool,
    /// Where the word is in the image read, in pixels: left, top, right and bottom.
    pub bounds: [u32; 4],
    /// How sure Tesseract is of the word, 0 to 100.
    pub confidence: f32,
}

/// Tesseract loaded, with an engine for the text's languages and, once asked which way is up,
/// one for orientation.
pub struct Tesseract {
    api: Api,
    text: Handle,
    orientation: OnceCell<Option<Handle>>,
    _library: Library,
}

impl Tesseract {
    /// Loads the library and starts an engine for `languages` (Tesseract's `eng+deu` form).
    pub fn load(languages: &str) -> Result<Tesseract, String> {
        // SAFETY: loading Tesseract runs its initialisers, which have no preconditions.
        let library = unsafe { Library::new(LIBRARY) }
            .map_err(|e| format!("Tesseract is not installed ({e}); install it with: apt-get install tesseract-ocr"))?;
        let api = Api::bind(&library).map_err(|e| format!("{LIBRARY} is not Tesseract 5: {e}"))?;
        let text = start(&api, languages).ok_or_else(|| {
            format!(
                "Tesseract has no data for the language(s) {languages}; install it with: apt-get install tesseract-ocr-{}",
                languages.split('+').next().unwrap_or("eng")
            )
        })?;
        Ok(Tesseract {
            api,
            text,
            orientation: OnceCell::new(),
            _library: library,
        })
    }

    /// The clockwise rotation, in degrees (0, 90, 180 or 270), that makes `image` upright, when
    /// Tesseract can tell.
    pub fn upright_rotation(&self, image: &Grey) -> Option<u32> {
        // The orientation engine, if its data (`osd`) is installed.
        let handle = (*self.orientation.get_or_init(|| start(&self.api, "osd")))?;
        self.set_image(handle, image, PSM_OSD_ONLY);
        let (mut degrees, mut confidence, mut script, mut script_confidence) = (0, 0.0, ptr::null(), 0.0);
        // SAFETY: `handle` is a started engine holding the image; the out-pointers are valid.
        let found = unsafe {
            (self.api.detect_orientation_script)(
                handle,
                &mut degrees,
                &mut confidence,
                &mut script,
                &mut script_confidence,
            )
        };
        // Tesseract gives the rotation the image has undergone; undoing it makes the page upright.
        (found != 0 && confidence >= MIN_ORIENTATION_CONFIDENCE).then(|| (360 - degrees.rem_euclid(360) as u32) % 360)
    }

    /// The words of `image` in reading order (column by column, line by line) at `dpi`.
    pub fn words(&self, image: &Grey) -> Result<Vec<Word>, String> {
        self.set_image(self.text, image, PSM_AUTO);
        // SAFETY: `self.text` is a started engine holding the image; no progress monitor is passed.
        if unsafe { (self.api.recognize)(self.text, ptr::null_mut()) } != 0 {
            return Err("Tesseract could not recognise the page".into());
        }
        // SAFETY: recognition has run; the iterator is deleted below.
        let iterator = unsafe { (self.api.get_iterator)(self.text) };
        if iterator.is_null() {
            return Ok(Vec::new());
        }
        let mut words = Vec::new();
        loop {
            // SAFETY: `iterator` is live; the text it returns is freed with `delete_text`.
            let word = unsafe { self.word_at(iterator) };
            words.extend(word);
            // SAFETY: as above.
            if unsafe { (self.api.iterator_next)(iterator, WORD) } == 0 {
                break;
            }
        }
        // SAFETY: `iterator` came from `get_iterator` and is not used after this.
        unsafe { (self.api.iterator_delete)(iterator) };
        Ok(words)
    }

    /// The word `iterator` is at, if it holds text.
    ///
    /// # Safety
    /// `iterator` must be a live result iterator of this engine.
    unsafe fn word_at(&self, iterator: Iterator) -> Option<Word> {
        // SAFETY: the caller's contract.
        let raw = unsafe { (self.api.iterator_text)(iterator, WORD) };
        if raw.is_null() {
            return None;
        }
        // SAFETY: Tesseract returns a NUL-terminated string, freed once copied.
        let text = unsafe { CStr::from_ptr(raw) }.to_string_lossy().trim().to_string();
        // SAFETY: `raw` came from Tesseract and is not used after this.
        unsafe { (self.api.delete_text)(raw) };
        // SAFETY: the caller's contract; the page iterator lives as long as `iterator`.
        let page = unsafe { (self.api.iterator_page)(iterator) };
        let [mut left, mut top, mut right, mut bottom] = [0; 4];
        // SAFETY: as above; the out-pointers are valid.
        unsafe { (self.api.bounding_box)(page, WORD, &mut left, &mut top, &mut right, &mut bottom) };
        Some(Word {
            text,
            // SAFETY: as above.
            starts_line: unsafe { (self.api.page_is_at_beginning_of)(page, LINE) } != 0,
            bounds: [left, top, right, bottom].map(|v| v.max(0) as u32),
            // SAFETY: the caller's contract.
            confidence: unsafe { (self.api.iterator_confidence)(iterator, WORD) },
        })
        .filter(|w| !w.text.is_empty())
    }

    fn set_image(&self, handle: Handle, image: &Grey, mode: c_int) {
        // SAFETY: `handle` is a started engine; Tesseract copies the image, whose buffer holds
        // `height` rows of `stride` bytes (as it is made).
        unsafe {
            (self.api.set_page_seg_mode)(handle, mode);
            (self.api.set_image)(
                handle,
                image.pixels.as_ptr(),
                image.width as c_int,
                image.height as c_int,
                1,
                image.stride as c_int,
            );
            (self.api.set_source_resolution)(handle, image.dpi as c_int);
        }
    }
}

impl Drop for Tesseract {
    fn drop(&mut self) {
        let orientation = self.orientation.get().copied().flatten();
        for handle in [Some(self.text), orientation].into_iter().flatten() {
            // SAFETY: each handle was created by this API and is not used after this.
            unsafe {
                (self.api.end)(handle);
                (self.api.delete)(handle);
            }
        }
    }
}

/// A new engine for `languages`, from the data Tesseract was installed with.
fn start(api: &Api, languages: &str) -> Option<Handle> {
    let languages = CString::new(languages).ok()?;
    // SAFETY: creating an engine has no preconditions.
    let handle = unsafe { (api.create)() };
    if handle.is_null() {
        return None;
    }
    // SAFETY: `handle` is new; a null data path means the installed data.
    if unsafe { (api.init3)(handle, ptr::null(), languages.as_ptr()) } == 0 {
        Some(handle)
    } else {
        // SAFETY: `handle` is not used after this.
        unsafe { (api.delete)(handle) };
        None
    }
}

impl Api {
    fn bind(library: &Library) -> Result<Api, libloading::Error> {
        /// The symbol `name` of `library` as a function pointer of the field's type.
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: the symbol is the C API's function of that name, whose signature in
                // capi.h is the field's type.
                *unsafe { library.get(concat!($name, "\0").as_bytes()) }?
            };
        }
        Ok(Api {
            create: symbol!("TessBaseAPICreate"),
            delete: symbol!("TessBaseAPIDelete"),
            end: symbol!("TessBaseAPIEnd"),
            init3: symbol!("TessBaseAPIInit3"),
            set_page_seg_mode: symbol!("TessBaseAPISetPageSegMode"),
            set_image: symbol!("TessBaseAPISetImage"),
            set_source_resolution: symbol!("TessBaseAPISetSourceResolution"),
            recognize: symbol!("TessBaseAPIRecognize"),
            detect_orientation_script: symbol!("TessBaseAPIDetectOrientationScript"),
            get_iterator: symbol!("TessBaseAPIGetIterator"),
            iterator_delete: symbol!("TessResultIteratorDelete"),
            iterator_next: symbol!("TessResultIteratorNext"),
            iterator_text: symbol!("TessResultIteratorGetUTF8Text"),
            iterator_confidence: symbol!("TessResultIteratorConfidence"),
            iterator_page: symbol!("TessResultIteratorGetPageIteratorConst"),
            page_is_at_beginning_of: symbol!("TessPageIteratorIsAtBeginningOf"),
            bounding_box: symbol!("TessPageIteratorBoundingBox"),
            delete_text: symbol!("TessDeleteText"),
        })
    }
}
