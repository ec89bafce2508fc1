"""Unit tests for transform_launches.py (standard library only).

Run: PYTHONPATH=grader/cpu_backend python3 grader/cpu_backend/tests/test_transform_launches.py
(the CPU backend's Python stands alone: its folder is its import root, CONTRIBUTING.md)
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

import transform_launches as tl  # grader/cpu_backend, on PYTHONPATH (tests/meson.build)

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "transform_launches.py")


def transform_text(text, name="input.cu", extra_files=None):
    """Transform `text` as a file in a fresh directory; returns the output text."""
    with tempfile.TemporaryDirectory() as directory:
        for relative, content in (extra_files or {}).items():
            path = os.path.join(directory, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(content)
        source = os.path.join(directory, name)
        with open(source, "w", encoding="utf-8") as stream:
            stream.write(text)
        body = tl.Transformer([]).transform_file(source)
        return body.replace(directory, "<dir>")


def launches(output):
    """(kernel name, config text, argument text) of every rewritten launch."""
    found = []
    for line in output.split("\n"):
        for match in re.finditer(r'launch_config\((.*?)\), "((?:[^"\\]|\\.)*)", __FILE__, (\d+),', line):
            config, kernel, _ = match.groups()
            tail = line[match.end():]
            body = re.search(r"cpu_backend_args_\) \{ (.*?)\(cpu_backend_args_\.\.\.\); \}", tail)
            found.append((kernel, config, body.group(1) if body else None))
    return found


class KernelLaunches(unittest.TestCase):
    def test_two_argument_launch(self):
        out = transform_text("void f(int* p) { k<<<4, 256>>>(p); }\n")
        self.assertEqual([("k", "4, 256", "k")], launches(out))
        self.assertNotIn("<<<", out)
        self.assertIn(", p);", out)

    def test_three_and_four_argument_launches(self):
        out = transform_text("k<<<g, b, bytes>>>(x);\nk<<<g, b, 0, stream>>>(x, y);\n")
        self.assertEqual(["g, b, bytes", "g, b, 0, stream"], [c for _, c, _ in launches(out)])

    def test_templated_kernel(self):
        out = transform_text("scan_kernel<int, 256><<<g, b>>>(in, out, n);\n")
        self.assertEqual([("scan_kernel<int, 256>", "g, b", "scan_kernel<int, 256>")], launches(out))
        self.assertIn("kernel_address<decltype(cpu_backend_probe_)>(scan_kernel<int, 256>)", out)

    def test_qualified_and_global_names(self):
        out = transform_text("ns::inner::k<T><<<1, 1>>>();\n::top<<<1, 1>>>();\nOuter<int>::k<<<1, 1>>>();\n")
        self.assertEqual(["ns::inner::k<T>", "::top", "Outer<int>::k"], [k for k, _, _ in launches(out)])

    def test_template_arguments_with_parentheses_and_nesting(self):
        out = transform_text("k<(N > 2), std::pair<int, std::vector<int>>><<<1, 1>>>(x);\n")
        self.assertEqual(["k<(N > 2), std::pair<int, std::vector<int>>>"], [k for k, _, _ in launches(out)])

    def test_nested_parentheses_templates_and_commas_in_config_and_arguments(self):
        text = (
            "k<<<dim3((n + 255) / 256, 1), std::min<int>(256, n), sizeof(std::pair<int, int>) * 4, s>>>"
            "(f(a, b), std::vector<int>{1, 2}.size(), c[i, j]);\n"
        )
        out = transform_text(text)
        self.assertEqual(
            [("k", "dim3((n + 255) / 256, 1), std::min<int>(256, n), sizeof(std::pair<int, int>) * 4, s", "k")],
            launches(out),
        )
        self.assertIn(", f(a, b), std::vector<int>{1, 2}.size(), c[i, j]);", out)

    def test_triple_closing_angle_inside_config(self):
        text = "k<<<g, std::tuple_size<std::tuple<std::vector<int>>>::value>>>(x);\n"
        out = transform_text(text)
        self.assertEqual(["g, std::tuple_size<std::tuple<std::vector<int>>>::value"], [c for _, c, _ in launches(out)])

    def test_empty_argument_list(self):
        out = transform_text("k<<<1, 1>>>();\n")
        self.assertIn("{ k(cpu_backend_args_...); })", out)

    def test_launch_spanning_lines_keeps_line_count_and_line_number(self):
        text = "int a;\n  k<\n    int><<<\n      grid,\n      block\n    >>>\n    (x,\n     y);\nint marker;\n"
        out = transform_text(text)
        self.assertEqual(text.count("\n"), out.count("\n"))
        self.assertEqual("int marker;", out.split("\n")[8])
        self.assertIn('"k< int>", __FILE__, 2,', out)

    def test_comments_and_strings_are_untouched(self):
        text = (
            "// k<<<1, 1>>>(x);\n"
            "/* k<<<1, 1>>>(x); */\n"
            'const char* s = "k<<<1, 1>>>(x)";\n'
            'const char* r = R"delim(k<<<1, 1>>>(x) )" )delim";\n'
            "char c = '<'; int big = 1'000'000;\n"
            "k<<<1, 1>>>(s); // trailing <<<comment>>>(\n"
        )
        out = transform_text(text)
        self.assertEqual(1, len(launches(out)))
        for line in text.split("\n")[:5]:
            self.assertIn(line, out)
        self.assertIn("// trailing <<<comment>>>(", out)

    def test_comment_inside_a_launch_is_kept_on_its_line(self):
        text = "k<<<grid,  // blocks\n    block>>>(x);\nint marker;\n"
        out = transform_text(text)
        self.assertEqual("int marker;", out.split("\n")[2])
        self.assertIn("launch_config(grid,  // blocks\n    block)", out)

    def test_shift_operator_template_is_not_a_launch(self):
        text = "friend std::ostream& operator<<<>(std::ostream&, const Box<T>&);\n"
        self.assertEqual(text, transform_text(text))

    def test_launch_inside_a_macro_keeps_continuations(self):
        text = "#define LAUNCH(p) \\\n    k<<<1, 32>>>( \\\n        p)\nint marker;\n"
        out = transform_text(text)
        self.assertEqual(text.count("\n"), out.count("\n"))
        self.assertEqual("int marker;", out.split("\n")[3])
        for line in out.split("\n")[:2]:
            self.assertTrue(line.endswith("\\"), line)

    def test_member_and_function_pointer_kernels(self):
        out = transform_text("table[i]<<<1, 1>>>(x);\nholder.kernel<<<1, 1>>>(x);\nptr->k<<<1, 1>>>();\n")
        self.assertEqual(["table[i]", "holder.kernel", "ptr->k"], [k for k, _, _ in launches(out)])

    def test_statement_keywords_are_not_part_of_the_kernel_name(self):
        out = transform_text("if (a) k<<<1, 1>>>(x); else other<<<1, 1>>>(y);\n")
        self.assertEqual(["k", "other"], [k for k, _, _ in launches(out)])

    def test_missing_closing_brackets_is_an_error_with_the_line(self):
        with self.assertRaises(tl.TransformError) as raised:
            transform_text("int a;\nk<<<1, 1(x);\n")
        self.assertIn(":2: error:", str(raised.exception))


class ExternShared(unittest.TestCase):
    def test_plain_declaration(self):
        out = transform_text("extern __shared__ float sdata[];\n")
        self.assertEqual(
            "static thread_local float* const sdata = "
            "static_cast<float*>(::cpu_backend::detail::dynamic_shared_memory());\n",
            out,
        )

    def test_alignment_specifiers_are_dropped(self):
        for decl in (
            "extern __shared__ __align__(16) unsigned char smem[];",
            "extern __shared__ alignas(16) unsigned char smem[];",
            "extern __shared__ unsigned char __align__(sizeof(int4)) smem [ ];",
            "extern __shared__ __attribute__((aligned(16))) unsigned char smem[];",
        ):
            out = transform_text(decl + "\n")
            self.assertIn("static thread_local unsigned char* const smem = static_cast<unsigned char*>", out, decl)

    def test_templated_and_qualified_types(self):
        out = transform_text("extern __shared__ typename Traits<T>::value_type cache[];\n")
        self.assertIn("static thread_local typename Traits<T>::value_type* const cache", out)

    def test_multi_line_declaration_keeps_line_count(self):
        text = "extern __shared__\n    int4\n    tile[];\nint marker;\n"
        out = transform_text(text)
        self.assertEqual("int marker;", out.split("\n")[3])

    def test_comments_are_untouched(self):
        text = "// extern __shared__ int x[];\n/* extern __shared__ int y[]; */\n"
        self.assertEqual(text, transform_text(text))

    def test_sized_declaration_is_an_error(self):
        with self.assertRaises(tl.TransformError):
            transform_text("extern __shared__ int fixed[16];\n")


class Includes(unittest.TestCase):
    def test_cuda_headers_are_inlined_with_line_directives(self):
        header = "#pragma once\n__global__ void k(int*);\ninline void go(int* p) { k<<<1, 1>>>(p); }\n"
        out = transform_text(
            '#include "kernels.cuh"\nint marker;\n', extra_files={"kernels.cuh": header}
        )
        self.assertIn('#line 1 "<dir>/kernels.cuh"', out)
        self.assertIn("launch_kernel(", out)
        self.assertRegex(out, r'#line 2 "<dir>/input\.cu"\nint marker;')
        self.assertIn("#ifndef CPU_BACKEND_ONCE_", out)
        self.assertNotIn("#pragma once", out)

    def test_other_local_headers_get_absolute_paths(self):
        out = transform_text('#include "util/helpers.h"\n', extra_files={"util/helpers.h": "int helper();\n"})
        self.assertEqual('#include "<dir>/util/helpers.h"\n', out)

    def test_system_and_missing_headers_are_left_alone(self):
        text = '#include <cuda_runtime.h>\n#include "not_here.cuh"\n'
        self.assertEqual(text, transform_text(text))

    def test_include_in_a_comment_is_not_inlined(self):
        text = '// #include "kernels.cuh"\n'
        self.assertEqual(text, transform_text(text, extra_files={"kernels.cuh": "int x;\n"}))


class CommandLine(unittest.TestCase):
    def test_writes_line_directive_and_depfile(self):
        with tempfile.TemporaryDirectory() as directory:
            source = os.path.join(directory, "lab.cu")
            header = os.path.join(directory, "lab.cuh")
            with open(source, "w", encoding="utf-8") as stream:
                stream.write('#include "lab.cuh"\nvoid f() { k<<<1, 1>>>(); }\n')
            with open(header, "w", encoding="utf-8") as stream:
                stream.write("__global__ void k() {}\n")
            output = os.path.join(directory, "lab.cpp")
            depfile = os.path.join(directory, "lab.cpp.d")
            subprocess.run([sys.executable, SCRIPT, source, output, "--depfile", depfile], check=True)
            with open(output, encoding="utf-8") as stream:
                text = stream.read()
            self.assertTrue(text.startswith('#line 1 "%s"\n' % source))
            with open(depfile, encoding="utf-8") as stream:
                dependencies = stream.read()
            self.assertTrue(dependencies.startswith(output + ":"))
            self.assertIn(header, dependencies)

    def test_error_exit_status_and_message(self):
        with tempfile.TemporaryDirectory() as directory:
            source = os.path.join(directory, "bad.cu")
            with open(source, "w", encoding="utf-8") as stream:
                stream.write("void f() {\n  k<<<1, 1;\n}\n")
            result = subprocess.run(
                [sys.executable, SCRIPT, source, os.path.join(directory, "bad.cpp")],
                capture_output=True,
                text=True,
            )
            self.assertEqual(1, result.returncode)
            self.assertIn("bad.cu:2: error:", result.stderr)


if __name__ == "__main__":
    unittest.main()
