// The baseline's algorithm under another name: different machine code, the same speed (true
// ratio 1), so the judge must time it and find no difference.
static std::vector<WordCount> countWords(const std::string &filePath) {
  std::unordered_map<std::string, int> m;
  m.max_load_factor(0.5);
  std::vector<WordCount> mvec;
  std::ifstream inFile{filePath};
  std::string s;
  while (inFile >> s)
    m[s]++;
  mvec.reserve(m.size());
  for (auto &p : m)
    mvec.emplace_back(WordCount{p.second, std::move(p.first)});
  std::sort(mvec.begin(), mvec.end(), std::greater<WordCount>());
  return mvec;
}

std::vector<WordCount> wordcount(std::string filePath) { return countWords(filePath); }
