// 0.6× (slower: measured, bench/ladder/README.md): the baseline's loop, run twice over the file
// (the first pass is thrown away).
std::vector<WordCount> wordcount(std::string filePath) {
  std::unordered_map<std::string, int> m;
  m.max_load_factor(0.5);
  std::vector<WordCount> mvec;
  for (int pass = 0; pass < 2; ++pass) {
    m.clear();
    std::ifstream inFile{filePath};
    std::string s;
    while (inFile >> s)
      m[s]++;
  }
  mvec.reserve(m.size());
  for (auto &p : m)
    mvec.emplace_back(WordCount{p.second, p.first});
  std::sort(mvec.begin(), mvec.end(), std::greater<WordCount>());
  return mvec;
}
