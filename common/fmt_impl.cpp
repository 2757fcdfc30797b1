// fmt's out-of-line functions, compiled once for the whole project. The alternatives cost
// more: FMT_HEADER_ONLY compiles them again in every translation unit (it doubled the compile
// time of small files at -O2 -g), and Debian's libfmt.so would bring libstdc++.so back into
// executables that link the C++ runtime statically (meson.build, static_cxx_runtime).
//
// format-inl.h holds the definitions; without FMT_HEADER_ONLY they are ordinary external
// functions. The templates that format.h only declares are instantiated here for the types
// the project formats with (char and the standard locale).
#include <locale>

#include <fmt/format-inl.h>

namespace fmt {
inline namespace v9 {
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;

}  // namespace detail
}  // namespace v9
}  // namespace fmt
