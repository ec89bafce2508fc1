// How often this process was continued after a stop (SIGCONT). A student's runner of the same user
// can stop the checker (SIGSTOP cannot be refused) while it times a yardstick, which would flatter
// every ratio: a timed round during which the count moved is void (timed_rounds.cu).
#pragma once

namespace grader {

// From now on: count continues, and ignore the terminal's stop signals. The checker's main() calls it.
void count_continues();
int times_continued();

}  // namespace grader
