"""PrairieLearn's external grading results, /grade/results/results.json, as its documentation
describes them: https://prairielearn.readthedocs.io/en/latest/externalGrading/#grading-results
(docs/externalGrading.md in github.com/PrairieLearn/PrairieLearn), read 2026-11.

  - `score`: a number in [0.0, 1.0], the only field a gradable result must have;
  - `gradable`: false when the submission cannot be graded (it does not compile): then no points
    are awarded or lost, no attempt is used, and `score` is not needed; `format_errors`, a string
    or a list of strings, says why;
  - `message`, `output`: text shown with the result; `images`: data URLs, each a string or
    {"url", "label"};
  - `tests`: each with `name`, `description`, `points`, `max_points`, `message`, `output`,
    `images`, as <pl-external-grader-results> renders them;
  - the file is limited to 1 MB.

The page allows other fields besides; this grader writes only these, and problems() holds it to
that, so that every field it writes is one PrairieLearn documents.
"""
import json

DOCUMENTATION = "https://prairielearn.readthedocs.io/en/latest/externalGrading/#grading-results"
MAX_BYTES = 1_000_000
NUMBER = (int, float)
TOP_FIELDS = {"gradable": bool, "score": NUMBER, "message": str, "output": str,
              "format_errors": (str, list), "images": list, "tests": list}
TEST_FIELDS = {"name": str, "description": str, "points": NUMBER, "max_points": NUMBER,
               "message": str, "output": str, "images": list}


def _type_problems(where, value, fields):
    problems = []
    for key, item in value.items():
        if key not in fields:
            problems.append(f"{where}: {key!r} is not a documented field")
        elif isinstance(item, bool) != (fields[key] is bool) or not isinstance(item, fields[key]):
            problems.append(f"{where}: {key} is a {type(item).__name__}")
    return problems


def _image_problems(where, images):
    problems = []
    for i, image in enumerate(images):
        if isinstance(image, str):
            continue
        if not isinstance(image, dict) or not isinstance(image.get("url"), str) \
                or set(image) - {"url", "label"} or not isinstance(image.get("label", ""), str):
            problems.append(f"{where}: image {i} is neither a URL nor {{url, label}}")
    return problems


def problems(results):
    """What in `results` the documentation does not allow; [] when it is a valid results.json."""
    if not isinstance(results, dict):
        return ["not a JSON object"]
    try:
        size = len(json.dumps(results, allow_nan=False).encode())
    except ValueError as error:
        return [f"not strict JSON: {error}"]
    found = _type_problems("top level", results, TOP_FIELDS)
    if size > MAX_BYTES:
        found.append(f"{size} bytes: the documented limit is 1 MB")
    gradable = results.get("gradable", True)
    if gradable and "score" not in results:
        found.append("a gradable result needs a score")
    score = results.get("score")
    if isinstance(score, NUMBER) and not isinstance(score, bool) and not 0.0 <= score <= 1.0:
        found.append(f"score {score} is outside [0.0, 1.0]")
    if "format_errors" in results and gradable:
        found.append("format_errors belong to a result that is not gradable")
    errors = results.get("format_errors")
    if isinstance(errors, list) and not all(isinstance(e, str) for e in errors):
        found.append("format_errors: a list of strings, or a string")
    found += _image_problems("top level", results.get("images") or [])
    for i, test in enumerate(results.get("tests") or []):
        where = f"test {i}"
        if not isinstance(test, dict):
            found.append(f"{where}: not an object")
            continue
        where = f"test {i} ({test.get('name')})"
        found += _type_problems(where, test, TEST_FIELDS)
        if not isinstance(test.get("name"), str):
            found.append(f"{where}: no name")
        points, most = test.get("points"), test.get("max_points")
        if all(isinstance(v, NUMBER) and not isinstance(v, bool) for v in (points, most)) \
                and not 0 <= points <= most:
            found.append(f"{where}: {points} points of {most}")
        found += _image_problems(where, test.get("images") or [])
    return found
