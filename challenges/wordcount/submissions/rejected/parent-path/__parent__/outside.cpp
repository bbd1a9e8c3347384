// A file outside the contestant's tree (../outside.cpp): a patch may only write inside it.
int outsideTheTree = 1;
