// init() runs once before wordcount(); the baseline needs no set-up.
#include "wordcount.hpp"

void init() {}
