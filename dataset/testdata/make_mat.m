% Writes digits.mat for dataset's MAT-file tests (octave --no-gui -q make_mat.m).
% Five images of 4 x 3 pixels: image n's pixel (r, c) is (r + 10 c + 100 n) / 1000.
X = zeros(4, 3, 1, 5);
for n = 1:5, for r = 1:4, for c = 1:3, X(r, c, 1, n) = (r + 10*c + 100*n) / 1000; end, end, end
X3 = reshape(X, 4, 3, 5);
Xflat = zeros(5, 12);             % one image a row, row-major pixels
for n = 1:5, Xflat(n, :) = reshape(X(:, :, 1, n)', 1, 12); end
XT = Xflat';                      % one image a column
ang = int16([-45; -10; 0; 20; 45]);
lab = [3; 1; 2; 3; 0];
T2 = [ang double(ang) * 2];       % 5 x 2 targets
C = uint8(zeros(2, 2, 3, 5));     % colour: plane k of image n is 10 k + n
for n = 1:5, for k = 1:3, C(:, :, k, n) = 10*k + n; end, end
save('-v7', 'digits.mat', 'X', 'X3', 'Xflat', 'XT', 'ang', 'lab', 'T2', 'C');
