#include "app/service/multipart.hpp"

#include <algorithm>

#include <fcntl.h>
#include <gmime/gmime.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <set>

namespace rockperm::app::service {

namespace fs = std::filesystem;

namespace {

struct Unref {
  void operator()(void* object) const {
    if (object) g_object_unref(object);
  }
};
template <class T>
using Ref = std::unique_ptr<T, Unref>;

// What GMime warned of while parsing: the first problem that makes the body malformed.
struct Warnings {
  std::string first;
};

void on_warning(gint64 /*offset*/, GMimeParserWarning code, const gchar* item, gpointer data) {
  auto* w = static_cast<Warnings*>(data);
  const char* what = nullptr;
  switch (code) {
    case GMIME_WARN_MALFORMED_MULTIPART: what = "no part between the boundaries"; break;
    case GMIME_WARN_TRUNCATED_MESSAGE: what = "the body ends before its closing boundary"; break;
    case GMIME_WARN_MALFORMED_MESSAGE: what = "malformed"; break;
    case GMIME_WARN_PART_WITHOUT_CONTENT: what = "a part without content"; break;
    case GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY: what = "no boundary"; break;
    case GMIME_CRIT_NESTING_OVERFLOW: what = "parts nested too deep"; break;
    case GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT: what = "a part without headers or content"; break;
    case GMIME_CRIT_INVALID_HEADER_NAME: what = "an invalid header name in a part"; break;
    default: break;
  }
  if (what && w->first.empty()) w->first = std::string(what) + (item ? std::string(" (") + item + ")" : "");
}

// The delimiter lines "--boundary" in the spooled body, counted in one streaming pass (a part
// count bound before GMime builds every part in memory).
std::uint64_t count_delimiters(const fs::path& body, const std::string& boundary) {
  const std::string delimiter = "\n--" + boundary;
  std::FILE* f = std::fopen(body.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read the spooled request body " + body.string());
  std::string window = "\n";  // the body's start counts as a line start
  std::vector<char> chunk(1 << 16);
  std::uint64_t count = 0;
  for (std::size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), f)) > 0;) {
    window.append(chunk.data(), n);
    for (std::size_t at = window.find(delimiter); at != std::string::npos; at = window.find(delimiter, at + 1)) ++count;
    // keep what could start a delimiter cut by the chunk's end
    window.erase(0, window.size() > delimiter.size() ? window.size() - (delimiter.size() - 1) : 0);
  }
  std::fclose(f);
  return count;
}

}  // namespace

std::string form_boundary(const std::string& content_type) {
  if (content_type.rfind("multipart/form-data", 0) != 0) throw MalformedMultipart("not multipart/form-data");
  const Ref<GMimeContentType> type(g_mime_content_type_parse(nullptr, content_type.c_str()));
  const char* boundary = type ? g_mime_content_type_get_parameter(type.get(), "boundary") : nullptr;
  if (!boundary || !*boundary) throw MalformedMultipart("the Content-Type has no boundary parameter");
  return boundary;
}

FormData parse_form_data(const fs::path& body, const std::string& content_type, const fs::path& dir,
                         std::string (*file_name)(const std::string&), std::uint64_t max_files) {
  static std::once_flag init;
  std::call_once(init, [] { g_mime_init(); });
  const std::string boundary = form_boundary(content_type);
  // each part follows a delimiter, and the closing delimiter ends the last
  // GMime parses a part in about 7 ms (2000 parts took 13.7 s, 20000 over 120 s): a form holds at
  // most max_form_files files, and a stack of more slices comes as one archive
  const std::uint64_t files = std::min<std::uint64_t>(max_files, max_form_files);
  const std::uint64_t max_parts = files + max_text_fields;
  if (count_delimiters(body, boundary) > max_parts + 1) {
    throw TooManyParts("the form holds more than " + std::to_string(max_parts) + " parts (" + std::to_string(files) +
                       " files and " + std::to_string(max_text_fields) +
                       " fields); send a stack of more slices as one .zip or .tar (up to service.max_files = " +
                       std::to_string(max_files) + " files)");
  }
  // the body behind a header that names its type, read from the spooled file without a copy in memory
  const std::string header = "Content-Type: multipart/form-data; boundary=\"" + boundary + "\"\r\n\r\n";
  const int fd = ::open(body.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read the spooled request body " + body.string());
  const Ref<GMimeStream> head(g_mime_stream_mem_new_with_buffer(header.data(), header.size()));
  const Ref<GMimeStream> file(g_mime_stream_fs_new(fd));  // owns fd
  const Ref<GMimeStream> whole(g_mime_stream_cat_new());
  g_mime_stream_cat_add_source(GMIME_STREAM_CAT(whole.get()), head.get());
  g_mime_stream_cat_add_source(GMIME_STREAM_CAT(whole.get()), file.get());
  const Ref<GMimeParser> parser(g_mime_parser_new_with_stream(whole.get()));
  Warnings warnings;
  GMimeParserOptions* options = g_mime_parser_options_new();
  g_mime_parser_options_set_warning_callback(options, on_warning, &warnings);
  const Ref<GMimeObject> root(g_mime_parser_construct_part(parser.get(), options));
  g_mime_parser_options_free(options);
  if (!root || !GMIME_IS_MULTIPART(root.get())) throw MalformedMultipart("the body does not parse as multipart/form-data");
  if (!warnings.first.empty()) throw MalformedMultipart("multipart/form-data: " + warnings.first);
  auto* multipart = GMIME_MULTIPART(root.get());
  const int count = g_mime_multipart_get_count(multipart);
  if (count == 0) throw MalformedMultipart("multipart/form-data without a part");
  FormData form;
  std::set<std::string> names;
  for (int i = 0; i < count; ++i) {
    GMimeObject* part = g_mime_multipart_get_part(multipart, i);
    const char* disposition = g_mime_object_get_disposition(part);
    const char* name = g_mime_object_get_content_disposition_parameter(part, "name");
    if (!GMIME_IS_PART(part) || !disposition || std::string(disposition) != "form-data" || !name) {
      throw MalformedMultipart("part " + std::to_string(i + 1) + " is not a form field (Content-Disposition: form-data; name=...)");
    }
    const char* filename = g_mime_object_get_content_disposition_parameter(part, "filename");
    GMimeDataWrapper* content = g_mime_part_get_content(GMIME_PART(part));
    if (filename) {
      if (form.files.size() >= files) {  // the delimiters counted files and fields together
        throw TooManyParts("the form holds more than " + std::to_string(files) +
                           " files; send a stack of more slices as one .zip or .tar (up to service.max_files = " +
                           std::to_string(max_files) + " files)");
      }
      const std::string stored = file_name(filename);
      if (!names.insert(stored).second) throw MalformedMultipart("the file " + stored + " is sent twice");
      const fs::path path = dir / stored;
      GError* error = nullptr;
      const Ref<GMimeStream> out(g_mime_stream_fs_open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644, &error));
      if (!out) {
        const std::string why = error ? error->message : "unknown error";
        if (error) g_error_free(error);
        throw std::runtime_error("cannot write " + path.string() + ": " + why);
      }
      if (content && g_mime_data_wrapper_write_to_stream(content, out.get()) < 0) {
        throw std::runtime_error("cannot write " + path.string());
      }
      if (g_mime_stream_flush(out.get()) != 0) throw std::runtime_error("cannot write " + path.string());
      form.files.push_back(path);
    } else {
      if (form.fields.size() >= max_text_fields) {
        throw TooManyParts("the form holds more than " + std::to_string(max_text_fields) + " text fields");
      }
      const Ref<GMimeStream> text(g_mime_stream_mem_new());
      if (content) g_mime_data_wrapper_write_to_stream(content, text.get());
      GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(text.get()));
      if (bytes->len > 65536) throw MalformedMultipart(std::string("the field '") + name + "' is longer than 64 KiB");
      form.fields[name].assign(reinterpret_cast<const char*>(bytes->data), bytes->len);
    }
  }
  return form;
}

}  // namespace rockperm::app::service
