% Writes the MAT-files of matfile's tests (run: octave --no-gui -q make.m).
d = reshape(1:12, 3, 4) / 4;          % double 3 x 4: d(i,j) = (i + 3(j-1))/4
s = single(reshape(1:6, 2, 3)) / 2;   % single 2 x 3
u = uint8(reshape([0 1 2 250 255 7], 3, 2));
i16 = int16([-32768 -1 0 1 32767]');  % int16 5 x 1
i8 = int8([-128 5 127]);
u16 = uint16([0 65535]);
i32 = int32([-2147483648 2147483647]);
u32 = uint32([0 4294967295]);
n3 = reshape(0:23, 2, 3, 4);          % double 2 x 3 x 4
im = reshape(0:(4*3*1*2 - 1), 4, 3, 1, 2) / 23;  % H x W x C x N images
lg = logical([1 0 1]);
e = zeros(0, 3);
st.a = 1; st.b = [1 2];
c = {1, 'two'};
str = 'hello';
sp = sparse([1 0; 0 2]);
z = [1+2i 3-4i];
save('-v6', 'octave_v6.mat', 'd', 's', 'u', 'i16', 'i8', 'u16', 'i32', 'u32', 'n3', 'im', 'lg', 'e', 'st', 'c', 'str', 'sp', 'z');
save('-v7', 'octave_v7.mat', 'd', 's', 'u', 'i16', 'i8', 'u16', 'i32', 'u32', 'n3', 'im', 'lg', 'e', 'st', 'c', 'str', 'sp', 'z');
