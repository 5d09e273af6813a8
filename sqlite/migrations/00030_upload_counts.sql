-- PostgreSQL's 00030 counts an upload's codes into the stock level and the
-- batch once per statement instead of once per code, where a row trigger
-- updating the same row n times in one transaction cost O(n²). SQLite
-- updates a row in place, and its row triggers cost the same for every
-- code (10,000 codes in 0.25 s), so nothing changes here; the migration
-- keeps the two stores' versions alike.
-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
